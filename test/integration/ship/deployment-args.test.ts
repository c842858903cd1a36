/**
 * C-SHIP-2: the container args of every rendered Deployment are accepted by the built binaries. Each overlay's
 * server container runs from the server image's COPY set with exactly its command/args and env ($(VAR) and the
 * downward API substituted), its Secret volumes mounted and its emptyDirs fresh, against the dev cluster; the
 * kubelet's probes (Host = pod IP) must succeed, and every metric the PrometheusRule alerts on must be exposed.
 * The one stand-in: KUBECONFIG (a mounted dev-cluster kubeconfig) replaces the in-cluster service account.
 */
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Deployment } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { KUBECTL, kustomizeTargets, render } from '../deploy/support/rendered.js';
import { agentBuiltProblem } from './support/build-state.js';
import { useClusterStage } from './support/dev-cluster.js';
import { containerRun, mountPaths } from './support/pod-container.js';
import { containerRunProblem, startContainer } from './support/pod-runner.js';
import { describeWhenReady, firstProblem } from './support/prerequisites.js';

const POD_IP = '10.244.1.9';
const targets = KUBECTL ? kustomizeTargets() : [];
const deployments = targets.map((target) => {
  const manifests = render(target);
  const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name.endsWith('-server')) as unknown as V1Deployment;
  const rules = manifests.filter((m) => m.kind === 'PrometheusRule') as unknown as Array<{ spec: { groups: Array<{ rules: Array<{ expr: string }> }> } }>;
  return { target, deployment, alertExprs: rules.flatMap((r) => r.spec.groups.flatMap((g) => g.rules.map((rule) => rule.expr))) };
});

describeWhenReady('the rendered server Deployments run the built server', firstProblem(() => (KUBECTL ? undefined : 'kubectl is not installed'), agentBuiltProblem, containerRunProblem), () => {
  const stage = useClusterStage(() => ({ server: [...new Set(deployments.flatMap(({ deployment }) => mountPaths(deployment.spec!.template.spec!.containers[0]!))), '/var/run/cli-mcp-test'] }));

  it.each(deployments.map((d) => [d.target, d] as const))('%s: starts with its exact args, passes its probes, exposes what its alerts use', async (_target, { deployment, alertExprs }) => {
    const spec = structuredClone(deployment.spec!.template.spec!);
    const container = spec.containers[0]!;
    const namespace = deployment.metadata!.namespace ?? 'default';
    // In-cluster credentials stand-in: the server falls back to KUBECONFIG when it has no --kubeconfig.
    container.env = [...(container.env ?? []), { name: 'KUBECONFIG', value: '/var/run/cli-mcp-test/kubeconfig' }];
    container.volumeMounts = [...(container.volumeMounts ?? []), { name: 'test-kubeconfig', mountPath: '/var/run/cli-mcp-test' }];
    spec.volumes = [...(spec.volumes ?? []), { name: 'test-kubeconfig', secret: { secretName: 'test-kubeconfig' } }];
    const inputs = {
      secrets: {
        'cli-mcp-oc-hmac': { key: 'h'.repeat(64) },
        'cli-mcp-oc-auth': { token: 'deploy-bearer-0123456789' },
        'test-kubeconfig': { kubeconfig: readFileSync(stage.cluster.kubeconfig, 'utf8') },
      },
      fieldRefs: { 'metadata.namespace': namespace },
      scratch: mkdtempSync(join(stage.scratch, 'pod-')),
    };
    chmodSync(inputs.scratch, 0o755);
    const server = startContainer(containerRun(stage.image('server').runtime, stage.image('server').root, spec, container, inputs, 1001, stage.netns));
    try {
      await server.waitFor(/"msg":"listening"/);
      const portOf = (name: string | number): number => (typeof name === 'number' ? name : container.ports!.find((p) => p.name === name)!.containerPort);
      for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
        const get = probe?.httpGet;
        if (!get) continue;
        const port = portOf(get.port as string | number);
        const answer = await stage.netns.http({ url: `http://127.0.0.1:${port}${get.path}`, host: `${POD_IP}:${port}` });
        expect(answer.status, `${get.path}: ${answer.body}`).toBe(200);
      }
      const metrics = await stage.netns.http({ url: `http://127.0.0.1:${portOf('http')}/metrics`, host: `${POD_IP}:${portOf('http')}` });
      expect(metrics.status).toBe(200);
      const exposed = new Set([...metrics.body.matchAll(/^# TYPE (\S+) (\S+)/gm)].flatMap(([, name, type]) => (type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name!])));
      const used = new Set(alertExprs.flatMap((expr) => [...expr.matchAll(/\b((?:cli_)?mcp_[a-z_]+)\b/g)].map(([, name]) => name!)));
      if (alertExprs.length > 0) expect(used.size).toBeGreaterThan(3);
      expect([...used].filter((name) => !exposed.has(name))).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
