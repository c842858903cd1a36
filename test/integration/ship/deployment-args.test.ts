/**
 * C-SHIP-2: every container of every rendered Deployment runs the built binary of its image with exactly its
 * command/args and env — envFrom ConfigMaps of the same render, $(VAR) and the downward API substituted, its
 * Secret volumes mounted and its emptyDirs fresh — on a read-only root from the image's COPY set, against the dev
 * cluster. Per overlay, the server, the controller and the egress gateway run side by side as the cluster would
 * run them: the kubelet's probes (Host = pod IP) succeed, the controller leads under its pod name and the server's
 * /health sees exactly that controller on the instance's Lease, the gateway publishes its sandbox ConfigMap from the
 * mounted routes and investigation kubeconfig (the dev cluster's), and every metric the PrometheusRule alerts on is
 * exposed by the pods behind the job it names. The one stand-in: KUBECONFIG (a mounted dev-cluster kubeconfig)
 * replaces the in-cluster service account. Overlays without a namespace run in their own
 * (`kubectl apply -k … -n <ns>`).
 */
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { V1Container, V1Deployment } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { configMapsOf } from '../deploy/support/effective-settings.js';
import { kustomizeTargets, render, selects, type Manifest } from '../deploy/support/rendered.js';
import { eventually } from '@cli-mcp/testing';
import { agentBuiltProblem } from './support/build-state.js';
import { useClusterStage } from './support/dev-cluster.js';
import type { ImageName } from './support/image-harness.js';
import { containerRun, mountPaths } from './support/pod-container.js';
import { containerRunProblem, startContainer, type RunningContainer } from './support/pod-runner.js';
import { describeWhenReady, firstProblem, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';

const POD_IP = '10.244.1.9';
const TEST_KUBECONFIG_DIR = '/var/run/cli-mcp-test';
type Workload = { deployment: V1Deployment; container: V1Container; image: 'server' | 'controller' | 'egress' };
/**
 * What each image logs once it is fully up: the server listens; the controller has also won the Lease; the gateway
 * has loaded its routes, CA and the investigation kubeconfig and published the sandboxes' dummy kubeconfig.
 */
const UP: Record<Workload['image'], RegExp> = { server: /"msg":"listening"/, controller: /"msg":"became leader"/, egress: /"msg":"published the sandbox ConfigMap"/ };
/** The port each image serves /metrics on (the gateway's admin port also serves its probes). */
const METRICS_PORT: Record<Workload['image'], string> = { server: 'http', controller: 'http', egress: 'admin' };

type Rule = { expr: string };

/** The image a container runs, from its image reference (`…/cli-mcp-server:…`, `…/cli-mcp-controller:…`, `…/cli-mcp-egress:…`). */
function imageOf(container: V1Container): Workload['image'] {
  const match = /(?:^|\/)cli-mcp-(server|controller|egress)(?:[:@]|$)/.exec(container.image ?? '');
  if (!match) throw new Error(`container ${container.name}: image ${container.image} is not one the image checks assemble`);
  return match[1] as Workload['image'];
}

const targets = KUBECTL ? kustomizeTargets() : [];
const overlays = targets.map((target) => {
  const manifests = render(target);
  const workloads: Workload[] = (manifests.filter((m) => m.kind === 'Deployment') as unknown as V1Deployment[]).flatMap((deployment) =>
    deployment.spec!.template.spec!.containers.map((container) => ({ deployment, container, image: imageOf(container) })),
  );
  const rules = (manifests.filter((m) => m.kind === 'PrometheusRule') as unknown as Array<{ spec: { groups: Array<{ rules: Rule[] }> } }>).flatMap((r) => r.spec.groups.flatMap((g) => g.rules));
  return { target, manifests, workloads, rules };
});

/** Metric names a PromQL expression reads (ours: cli_mcp_* and the Go-compatible mcp_*). */
const metricsIn = (expr: string): string[] => [...expr.matchAll(/\b((?:cli_)?mcp_[a-z_]+)\b/g)].map(([, name]) => name!);
/** Series names a /metrics body exposes (a histogram as its _bucket/_count/_sum). */
const exposedIn = (body: string): string[] =>
  [...body.matchAll(/^# TYPE (\S+) (\S+)/gm)].flatMap(([, name, type]) => (type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name!]));

describeWhenReady('the rendered Deployments run the built binaries', firstProblem(() => KUBECTL_PROBLEM, agentBuiltProblem, containerRunProblem), () => {
  const mounts = (image: ImageName) => [...new Set(overlays.flatMap(({ workloads }) => workloads.filter((w) => w.image === image).flatMap((w) => mountPaths(w.container)))), TEST_KUBECONFIG_DIR];
  // HTTPS with a CA and a token, as a real API server: the gateway refuses an investigation kubeconfig without them.
  const stage = useClusterStage(() => ({ server: mounts('server'), controller: mounts('controller'), egress: mounts('egress') }), ['--tls']);

  function start(manifests: Manifest[], workload: Workload, namespace: string, podName: string): RunningContainer {
    const spec = structuredClone(workload.deployment.spec!.template.spec!);
    const container = spec.containers.find((c) => c.name === workload.container.name)!;
    // In-cluster credentials stand-in: both binaries fall back to KUBECONFIG when they have no --kubeconfig.
    container.env = [...(container.env ?? []), { name: 'KUBECONFIG', value: `${TEST_KUBECONFIG_DIR}/kubeconfig` }];
    container.volumeMounts = [...(container.volumeMounts ?? []), { name: 'test-kubeconfig', mountPath: TEST_KUBECONFIG_DIR }];
    spec.volumes = [...(spec.volumes ?? []), { name: 'test-kubeconfig', secret: { secretName: 'test-kubeconfig' } }];
    const inputs = {
      secrets: {
        'cli-mcp-oc-hmac': { key: 'h'.repeat(64) },
        'cli-mcp-oc-auth': { token: 'deploy-bearer-0123456789' },
        'test-kubeconfig': { kubeconfig: readFileSync(stage.cluster.kubeconfig, 'utf8') },
        // The investigation kubeconfig, which only the gateway mounts: the dev cluster as the cluster to investigate.
        'cli-mcp-oc-kubeconfig': { kubeconfig: readFileSync(stage.cluster.kubeconfig, 'utf8') },
      },
      configMaps: configMapsOf(manifests),
      fieldRefs: { 'metadata.namespace': namespace, 'metadata.name': podName },
      scratch: mkdtempSync(join(stage.scratch, 'pod-')),
    };
    chmodSync(inputs.scratch, 0o755);
    const image = stage.image(workload.image);
    return startContainer(containerRun(image.runtime, image.root, spec, container, inputs, 1001, stage.netns));
  }

  const portOf = (container: V1Container, port: string | number): number => (typeof port === 'number' ? port : container.ports!.find((p) => p.name === port)!.containerPort);
  const get = (container: V1Container, port: string | number, path: string) => {
    const number = portOf(container, port);
    return stage.netns.http({ url: `http://127.0.0.1:${number}${path}`, host: `${POD_IP}:${number}` });
  };

  it.each(overlays.map((o) => [o.target, o] as const))('%s: every container starts with its exact args, passes its probes, the server sees the leading controller, alerts use exposed metrics', async (target, { manifests, workloads, rules }) => {
    expect(workloads.map((w) => w.image).sort()).toEqual(['controller', 'egress', 'server']);
    const namespace = workloads[0]!.deployment.metadata!.namespace ?? `ship-${basename(target)}`;
    const running = workloads.map((workload) => ({ workload, podName: `${workload.deployment.metadata!.name}-7c9d4-ship0` }))
      .map((pod) => ({ ...pod, process: start(manifests, pod.workload, namespace, pod.podName) }));
    try {
      for (const { workload, process } of running) await process.waitFor(UP[workload.image]);
      const exposedBy = new Map<V1Deployment, Set<string>>();
      for (const { workload: { deployment, container, image } } of running) {
        for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
          const probed = probe?.httpGet;
          if (!probed) continue;
          // Polled as the kubelet would (the gateway turns ready once its pod informer has listed), on a slow machine;
          // the last answer is what the assertion shows.
          let answer = { status: 0, body: '(no answer)' };
          await eventually(async () => (answer = await get(container, probed.port as string | number, probed.path!)).status === 200, `${probed.path} 200`, 30_000).catch(() => undefined);
          expect(answer.status, `${deployment.metadata!.name} ${probed.path}: ${answer.body}`).toBe(200);
        }
        const metrics = await get(container, METRICS_PORT[image], '/metrics');
        expect(metrics.status).toBe(200);
        exposedBy.set(deployment, new Set(exposedIn(metrics.body)));
      }

      const controller = running.find((pod) => pod.workload.image === 'controller')!;
      const server = running.find((pod) => pod.workload.image === 'server')!;
      const controllerHealth = JSON.parse((await get(controller.workload.container, 'http', '/health')).body) as { details: { election: { role: string; identity: string } } };
      expect(controllerHealth.details.election).toMatchObject({ role: 'leader', identity: controller.podName });
      const serverHealth = JSON.parse((await get(server.workload.container, 'http', '/health')).body) as { details: { controller: { running: boolean; holder: string } } };
      expect(serverHealth.details.controller).toMatchObject({ running: true, holder: controller.podName });

      // Every metric an alert reads is exposed; one whose expression names a job, by the pods behind that job's Service.
      const everything = new Set([...exposedBy.values()].flatMap((names) => [...names]));
      expect(rules.flatMap((rule) => metricsIn(rule.expr)).filter((name) => !everything.has(name))).toEqual([]);
      if (rules.length > 0) {
        expect(new Set(rules.flatMap((rule) => metricsIn(rule.expr).filter((name) => name.startsWith('cli_mcp_controller_')))).size).toBeGreaterThanOrEqual(3);
        expect(new Set(rules.flatMap((rule) => metricsIn(rule.expr).filter((name) => !name.startsWith('cli_mcp_controller_')))).size).toBeGreaterThanOrEqual(3);
      }
      for (const rule of rules) {
        for (const [, job] of rule.expr.matchAll(/\bjob="([^"]+)"/g)) {
          const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === job) as (Manifest & { spec: { selector: Record<string, string> } }) | undefined;
          expect(service, `${rule.expr}: job ${job} is the name of a Service`).toBeDefined();
          const monitors = manifests.filter((m) => m.kind === 'ServiceMonitor') as Array<Manifest & { spec: { selector: { matchLabels: Record<string, string> } } }>;
          expect(monitors.some((monitor) => selects(monitor.spec.selector, service!.metadata.labels ?? {})), `a ServiceMonitor scrapes ${job}`).toBe(true);
          const behind = [...exposedBy].filter(([deployment]) => selects({ matchLabels: service!.spec.selector }, deployment.spec!.template.metadata!.labels!));
          expect(behind).toHaveLength(1);
          expect(metricsIn(rule.expr).filter((name) => !behind[0]![1].has(name)), `${rule.expr} on ${job}`).toEqual([]);
        }
      }
    } finally {
      for (const { process } of running) await process.stop();
    }
  }, 90_000);
});
