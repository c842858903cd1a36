/**
 * C-CTL-2, C-SHIP-3: in every rendered overlay the servers and the controller build the same sandbox pods — the
 * same validated settings, hence the same spec hash (the controller replaces pool pods whose hash differs from its
 * own; servers claim them) and the same Lease (the servers' /health names the controller). The settings are
 * defined once, in the ConfigMap both Deployments read with envFrom; a sandbox flag given to one of them as an arg
 * or env entry is drift, and this file proves it would be caught. Also: the server's drain fits its grace period,
 * and the ResourceQuota holds every Deployment at its largest rollout, the warm pool and the sessions it states.
 */
import type { V1Deployment } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { parseQuantity, sandboxSpecHash } from '@cli-mcp/podspec';
import { flagTable } from '@cli-mcp/common';
import { KubernetesSettings } from '@cli-mcp/kube';
import { controllerConfigOf, deploymentOf, serverConfigOf, startedWith } from './support/effective-settings.js';
import { kustomizeTargets, render, type Manifest } from './support/rendered.js';
import { describeWhenReady, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';

const targets = kustomizeTargets();
const rendered = new Map(KUBECTL ? targets.map((target) => [target, render(target)]) : []);

/** Flags that shape sandbox pods: only the shared ConfigMap may set them (`--namespace` is each pod's own). */
const SANDBOX_FLAGS = [...flagTable(KubernetesSettings).map((flag) => flag.name), 'default-timeout', 'max-timeout'].filter((name) => name !== 'namespace' && name !== 'kubeconfig');
const envName = (flag: string): string => `CLI_MCP_${flag.toUpperCase().replace(/-/g, '_')}`;

/** Sandbox flags a Deployment sets outside envFrom: in its args or its own env list. */
function settingsOutsideConfigMap(deployment: V1Deployment): string[] {
  const container = deployment.spec!.template.spec!.containers[0]!;
  const inArgs = (container.args ?? []).flatMap((arg) => SANDBOX_FLAGS.filter((flag) => arg === `--${flag}` || arg.startsWith(`--${flag}=`)).map((flag) => `--${flag}`));
  const inEnv = (container.env ?? []).map((e) => e.name).filter((name) => SANDBOX_FLAGS.some((flag) => envName(flag) === name));
  return [...inArgs, ...inEnv];
}

async function podConfigs(manifests: Manifest[]) {
  const server = (await serverConfigOf(manifests)).kubernetes.podConfig!;
  const controller = controllerConfigOf(manifests).podConfig;
  return { server, controller };
}

for (const target of targets) describeWhenReady(target, KUBECTL_PROBLEM, () => {
  const manifests = () => rendered.get(target) ?? [];

  it('the servers and the controller get identical sandbox settings: same pod config, spec hash, namespace and instance (Lease)', async () => {
    const { server, controller } = await podConfigs(manifests());
    expect(controller).toEqual(server);
    expect(sandboxSpecHash(controller)).toBe(sandboxSpecHash(server));
    expect(server.namespace).toBe(deploymentOf(manifests(), '-server').metadata!.namespace ?? 'default');
    expect(controller.image).not.toBe('');
  });

  it('both read the sandbox settings from one ConfigMap and set none of them themselves', () => {
    const [server, controller] = ['-server', '-controller'].map((suffix) => deploymentOf(manifests(), suffix));
    const refs = [server!, controller!].map((d) => d.spec!.template.spec!.containers[0]!.envFrom?.map((from) => from.configMapRef?.name));
    expect(refs[0]).toHaveLength(1);
    expect(refs[1]).toEqual(refs[0]);
    expect(manifests().some((m) => m.kind === 'ConfigMap' && m.metadata.name === refs[0]![0])).toBe(true);
    expect(settingsOutsideConfigMap(server!)).toEqual([]);
    expect(settingsOutsideConfigMap(controller!)).toEqual([]);
  });

  it('each controller pod elects under its own pod name (downward API), on the address its probes use', () => {
    const [a, b] = ['cli-mcp-oc-controller-7d9f-a', 'cli-mcp-oc-controller-7d9f-b'].map((pod) => controllerConfigOf(manifests(), pod));
    expect([a!.identity, b!.identity]).toEqual(['cli-mcp-oc-controller-7d9f-a', 'cli-mcp-oc-controller-7d9f-b']);
    expect(a!.http).toMatchObject({ host: '0.0.0.0', port: 8081 });
  });

  it('the server pod\'s grace period outlasts its drain (max timeout + 10 s, C-HTTP-4)', async () => {
    const config = await serverConfigOf(manifests());
    const grace = deploymentOf(manifests(), '-server').spec!.template.spec!.terminationGracePeriodSeconds!;
    expect(grace).toBeGreaterThan(config.shutdownGraceMs / 1000);
  });

  it('the ResourceQuota holds every Deployment (server, controller, egress gateway) at its largest rollout, the warm pool and the sessions its comment names', async () => {
    const fit = sessionsThatFit(manifests(), controllerConfigOf(manifests()));
    expect(fit).toBe(target.endsWith('/dev') ? 7 : 40);
  });
});

describeWhenReady('the drift checks themselves', KUBECTL_PROBLEM, () => {
  it('catch a sandbox flag given to one Deployment as an arg', async () => {
    const manifests = structuredClone(rendered.get('deploy/base')!);
    const server = deploymentOf(manifests, '-server');
    server.spec!.template.spec!.containers[0]!.args!.push('--sandbox-memory-limit=1Gi');
    const { server: ours, controller } = await podConfigs(manifests);
    expect(ours.resources.memoryLimit).toBe('1Gi');
    expect(controller).not.toEqual(ours);
    expect(sandboxSpecHash(controller)).not.toBe(sandboxSpecHash(ours));
    expect(settingsOutsideConfigMap(server)).toEqual(['--sandbox-memory-limit']);
  });

  it('catch one set as the controller\'s own env entry', () => {
    const manifests = structuredClone(rendered.get('deploy/base')!);
    const controller = deploymentOf(manifests, '-controller');
    controller.spec!.template.spec!.containers[0]!.env!.push({ name: 'CLI_MCP_SANDBOX_IMAGE', value: 'other:1' });
    expect(controllerConfigOf(manifests).podConfig.image).toBe('other:1');
    expect(settingsOutsideConfigMap(controller)).toEqual(['CLI_MCP_SANDBOX_IMAGE']);
    expect(startedWith(manifests, controller, 'p').env['CLI_MCP_SANDBOX_IMAGE']).toBe('other:1');
  });
});

/** `text` in thousandths of its base unit (millicores, millibytes), exactly. */
function milli(text: string): bigint {
  const parsed = parseQuantity(text, 'quota');
  if (!parsed.ok) throw new Error(parsed.error);
  return (parsed.value.numerator * 1000n) / parsed.value.denominator;
}

type Budget = Record<'pods' | 'requests.cpu' | 'requests.memory' | 'limits.cpu' | 'limits.memory', bigint>;

/**
 * How many sessions the namespace's ResourceQuota admits next to every Deployment at its largest rollout
 * (replicas + maxSurge, a percentage rounded up as Kubernetes does) and the controller's warm pool, each sandbox
 * at the controller's pod resources.
 */
function sessionsThatFit(manifests: readonly Manifest[], controller: ReturnType<typeof controllerConfigOf>): number {
  const quota = manifests.find((m) => m.kind === 'ResourceQuota') as Manifest & { spec: { hard: Record<string, string> } };
  const left: Budget = { pods: 0n, 'requests.cpu': 0n, 'requests.memory': 0n, 'limits.cpu': 0n, 'limits.memory': 0n };
  for (const key of Object.keys(left) as Array<keyof Budget>) left[key] = key === 'pods' ? BigInt(quota.spec.hard[key]!) : milli(quota.spec.hard[key]!);
  const take = (count: bigint, requests: Record<string, string>, limits: Record<string, string>): void => {
    left.pods -= count;
    left['requests.cpu'] -= count * milli(requests['cpu']!);
    left['requests.memory'] -= count * milli(requests['memory']!);
    left['limits.cpu'] -= count * milli(limits['cpu']!);
    left['limits.memory'] -= count * milli(limits['memory']!);
  };
  for (const deployment of manifests.filter((m) => m.kind === 'Deployment') as unknown as V1Deployment[]) {
    const replicas = deployment.spec!.replicas ?? 1;
    const surge = deployment.spec!.strategy?.rollingUpdate?.maxSurge ?? '25%';
    const extra = typeof surge === 'number' ? surge : Math.ceil((replicas * Number(surge.replace('%', ''))) / 100);
    const { requests, limits } = deployment.spec!.template.spec!.containers[0]!.resources as { requests: Record<string, string>; limits: Record<string, string> };
    take(BigInt(replicas + extra), requests, limits);
  }
  const sandbox = controller.podConfig.resources;
  const requests = { cpu: sandbox.cpuRequest, memory: sandbox.memoryRequest };
  const limits = { cpu: sandbox.cpuLimit, memory: sandbox.memoryLimit };
  take(BigInt(controller.pool.size), requests, limits);
  const per: Budget = { pods: 1n, 'requests.cpu': milli(requests.cpu), 'requests.memory': milli(requests.memory), 'limits.cpu': milli(limits.cpu), 'limits.memory': milli(limits.memory) };
  return Math.min(...(Object.keys(left) as Array<keyof Budget>).map((key) => Number(left[key] / per[key])));
}
