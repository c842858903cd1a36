/**
 * issue 21 item 2 (C-OP-3, C-SHIP-2 for the operator): the server Deployment the operator renders from a CR is
 * accepted by the server — first by its own config loader (the args as the kubelet hands them, `$` and `$(VAR)`
 * included) with the very pod configuration the operator resolved, so pool pods and the server's pods share a
 * spec hash (C-CTL-2); then by the BUILT server from its image's COPY set, started with exactly the container's
 * args, mounts and a read-only root against the dev cluster, answering its probes (as deployment-args.test.ts does
 * for the kustomize path).
 */
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Container, V1Deployment } from '@kubernetes/client-node';
import { RuntimeCa } from '@cli-mcp/egress';
import { sandboxSpecHash } from '@cli-mcp/podspec';
import { describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../../apps/mcp-server/src/config/load-server-config.js';
import type { CliMcpInstance } from '../../../apps/sandbox-controller/src/operator/api/climcpinstance.js';
import { serverDeployment } from '../../../apps/sandbox-controller/src/operator/children/server-deployment.js';
import { resolveInstance, type ResolvedInstance } from '../../../apps/sandbox-controller/src/operator/spec/resolve-instance.js';
import { startedWith } from '../deploy/support/effective-settings.js';
import { agentBuiltProblem } from '../ship/support/build-state.js';
import { useClusterStage } from '../ship/support/dev-cluster.js';
import { containerRun, mountPaths } from '../ship/support/pod-container.js';
import { containerRunProblem, startContainer } from '../ship/support/pod-runner.js';
import { describeWhenReady, firstProblem } from '../../support/prerequisites.js';

const DEFAULTS = { namespace: 'team-a', serverImage: 'quay.io/example/cli-mcp-server:0.1.0', sandboxImage: 'quay.io/example/cli-mcp-sandbox:0.1.0', maxTimeoutSeconds: 600, defaultTimeoutSeconds: 90 };
const CRS: Record<string, CliMcpInstance['spec']> = {
  defaults: {},
  'a Go CR with our additions': {
    replicas: 3,
    sandbox: {
      image: 'quay.io/acme/oc:4.16', imagePullPolicy: 'IfNotPresent', warmPoolSize: 2, idleTimeout: '45m0s', maxSessionAge: '8h',
      resources: { requests: { cpu: 1, memory: '256Mi' }, limits: { cpu: '2', memory: '1Gi' } },
      env: [{ name: 'PS4', value: '$(HOME) costs $$5 $PATH' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'extra', key: 'token' } } }],
    },
    serverContainer: { imagePullPolicy: 'Always', resources: { limits: { memory: '1Gi' } } },
    server: { yieldAfter: '40s' },
  },
  // --egress-gateway (C-EGR-1): the server builds the egress sandbox pods (no kubeconfig Secret mount) from it.
  'spec.proxy': { sandbox: { warmPoolSize: 1 }, proxy: { targets: [{ type: 'kubernetes', secretName: 'admin-kc' }, { type: 'allowlist', domains: ['api.example.com'] }] } },
};

function resolve(spec: CliMcpInstance['spec']): ResolvedInstance {
  const result = resolveInstance({ metadata: { name: 'oc', namespace: DEFAULTS.namespace }, spec }, DEFAULTS);
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.instance;
}
const rendered = (instance: ResolvedInstance) => serverDeployment(instance, { name: 'oc', uid: 'u' }, { hmacUid: 'h', authUid: 'a', tls: false }, instance.replicas).object as unknown as V1Deployment;

describe('the server Deployment the operator renders', () => {
  it.each(Object.entries(CRS))('%s: the server\'s own loader accepts its args and builds the pod configuration the operator resolved', async (_name, spec) => {
    const instance = resolve(spec);
    const deployment = rendered(instance);
    const { argv, env } = startedWith([], deployment, 'cli-mcp-oc-server-7c9d4-x');
    const outcome = await loadServerConfig({ argv, env, homeDir: '/nonexistent', cwd: '/', version: '0.0.0-test', readFile: async () => 'k'.repeat(64), randomSuffix: () => 'test' });
    if (outcome.kind !== 'run') throw new Error(outcome.kind === 'invalid' ? outcome.problems.join('; ') : outcome.kind);
    expect(outcome.warnings).toEqual([]);
    expect(outcome.config.kubernetes.podConfig).toEqual(instance.podConfig);
    expect(sandboxSpecHash(outcome.config.kubernetes.podConfig!)).toBe(sandboxSpecHash(instance.podConfig));
    expect(outcome.config.tool.yieldAfterMs).toBe(spec?.server?.yieldAfter === '40s' ? 40_000 : 50_000);
    expect(outcome.config.kubernetes.podConfig!.egressGateway === true).toBe(spec?.proxy !== undefined);
  });

  it('with cli-mcp-<name>-tls: the server\'s own loader accepts the TLS flags and the mounted pair', async () => {
    const leaf = await (await RuntimeCa.generate('server-args tls')).mintLeaf('cli-mcp-oc-server.team-a.svc', false, 3_600_000);
    const instance = resolve({});
    const deployment = serverDeployment(instance, { name: 'oc', uid: 'u' }, { hmacUid: 'h', authUid: 'a', tls: true }, 1).object as unknown as V1Deployment;
    const { argv, env } = startedWith([], deployment, 'cli-mcp-oc-server-7c9d4-x');
    const mounted: Record<string, string> = { '/etc/cli-mcp/tls/tls.crt': leaf.cert, '/etc/cli-mcp/tls/tls.key': leaf.key };
    const outcome = await loadServerConfig({ argv, env, homeDir: '/nonexistent', cwd: '/', version: '0.0.0-test', readFile: async (path) => mounted[path] ?? 'k'.repeat(64), randomSuffix: () => 'test' });
    if (outcome.kind !== 'run') throw new Error(outcome.kind === 'invalid' ? outcome.problems.join('; ') : outcome.kind);
    expect(outcome.config.http.tls).toEqual({ certFile: '/etc/cli-mcp/tls/tls.crt', keyFile: '/etc/cli-mcp/tls/tls.key' });
  });
});

const TEST_KUBECONFIG_DIR = '/var/run/cli-mcp-test';
const POD_IP = '10.244.1.7';

describeWhenReady('the BUILT server runs the operator-rendered container', firstProblem(agentBuiltProblem, containerRunProblem), () => {
  const instance = resolve(CRS['a Go CR with our additions']);
  const deployment = rendered(instance);
  const container = deployment.spec!.template.spec!.containers[0]! as V1Container;
  const stage = useClusterStage(() => ({ server: [...mountPaths(container), TEST_KUBECONFIG_DIR] }));

  it('starts with exactly its args and mounts, read-only, as an arbitrary UID, and answers its probes', async () => {
    const spec = structuredClone(deployment.spec!.template.spec!);
    const run = spec.containers[0]!;
    // In-cluster credentials stand-in: the server falls back to KUBECONFIG without --kubeconfig.
    run.env = [...(run.env ?? []), { name: 'KUBECONFIG', value: `${TEST_KUBECONFIG_DIR}/kubeconfig` }];
    run.volumeMounts = [...(run.volumeMounts ?? []), { name: 'test-kubeconfig', mountPath: TEST_KUBECONFIG_DIR }];
    spec.volumes = [...(spec.volumes ?? []), { name: 'test-kubeconfig', secret: { secretName: 'test-kubeconfig' } }];
    const scratch = mkdtempSync(join(stage.scratch, 'pod-'));
    chmodSync(scratch, 0o755);
    const image = stage.image('server');
    const inputs = {
      secrets: {
        'cli-mcp-oc-hmac': { key: 'ab'.repeat(32) },
        'cli-mcp-oc-auth': { token: 'cd'.repeat(32) },
        'test-kubeconfig': { kubeconfig: readFileSync(stage.cluster.kubeconfig, 'utf8') },
      },
      fieldRefs: { 'metadata.namespace': DEFAULTS.namespace, 'metadata.name': 'cli-mcp-oc-server-7c9d4-x' },
      scratch,
    };
    const server = startContainer(containerRun(image.runtime, image.root, spec, run, inputs, 1000770000, stage.netns));
    try {
      await server.waitFor(/"msg":"listening"/);
      for (const probe of [run.startupProbe, run.readinessProbe, run.livenessProbe]) {
        const answer = await stage.netns.http({ url: `http://127.0.0.1:8080${probe!.httpGet!.path}`, host: `${POD_IP}:8080` });
        expect(answer.status, `${probe!.httpGet!.path}: ${answer.body}`).toBe(200);
      }
      // The bearer from the generated Secret guards /mcp (C-MCP-8); the Service name is an accepted Host.
      const denied = await stage.netns.http({ url: 'http://127.0.0.1:8080/mcp', host: 'cli-mcp-oc-server.team-a.svc', method: 'POST', body: '{}' });
      expect(denied.status).toBe(401);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
