import type { V1Container, V1Deployment } from '@kubernetes/client-node';
import { loadServerConfig } from '../../../../apps/mcp-server/src/config/load-server-config.js';
import type { ServerConfig } from '../../../../apps/mcp-server/src/config/server-config.js';
import type { ControllerConfig } from '../../../../apps/sandbox-controller/src/config/controller-config.js';
import { loadControllerConfig } from '../../../../apps/sandbox-controller/src/config/load-controller-config.js';
import { containerProcess } from '../../ship/support/pod-container.js';
import type { Manifest } from './rendered.js';

/** A rendered Deployment by its name's suffix (`-server`, `-controller`); fails when the render has none. */
export function deploymentOf(manifests: readonly Manifest[], suffix: string): V1Deployment {
  const found = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name.endsWith(suffix));
  if (!found) throw new Error(`no Deployment *${suffix} in the render`);
  return found as unknown as V1Deployment;
}

/** The ConfigMaps of a render: name → data. */
export function configMapsOf(manifests: readonly Manifest[]): Record<string, Record<string, string>> {
  return Object.fromEntries(manifests.filter((m) => m.kind === 'ConfigMap').map((m) => [m.metadata.name, (m['data'] ?? {}) as Record<string, string>]));
}

/**
 * What the first container of a rendered Deployment is started with, resolved as the kubelet resolves it (envFrom
 * ConfigMaps of the same render, env, `$(VAR)` in args), in namespace `namespace` as pod `podName` (the downward
 * API). The binaries are the images' ENTRYPOINT, so argv is the container's args.
 */
export function startedWith(manifests: readonly Manifest[], deployment: V1Deployment, podName: string): { container: V1Container; env: Record<string, string>; argv: string[] } {
  const container = deployment.spec!.template.spec!.containers[0]!;
  const namespace = deployment.metadata!.namespace ?? 'default';
  const { env, argv } = containerProcess({ env: new Map(), entrypoint: [], cmd: [] }, container, {
    secrets: {}, configMaps: configMapsOf(manifests), fieldRefs: { 'metadata.namespace': namespace, 'metadata.name': podName },
  });
  return { container, env: Object.fromEntries(env), argv };
}

/** The server's validated configuration from a render (its key and token files read as valid content). */
export async function serverConfigOf(manifests: readonly Manifest[]): Promise<ServerConfig> {
  const { env, argv } = startedWith(manifests, deploymentOf(manifests, '-server'), 'cli-mcp-oc-server-0');
  const outcome = await loadServerConfig({
    argv, env, homeDir: '/nonexistent', cwd: '/', version: '0.0.0-test', readFile: async () => 'k'.repeat(64), randomSuffix: () => 'test',
  });
  if (outcome.kind !== 'run') throw new Error(`the server would not start: ${outcome.kind === 'invalid' ? outcome.problems.join('; ') : outcome.kind}`);
  return outcome.config;
}

/** The controller's validated configuration from a render, as pod `podName`. */
export function controllerConfigOf(manifests: readonly Manifest[], podName = 'cli-mcp-oc-controller-0'): ControllerConfig {
  const { env, argv } = startedWith(manifests, deploymentOf(manifests, '-controller'), podName);
  const outcome = loadControllerConfig({ argv, env, version: '0.0.0-test', hostname: 'unused', randomSuffix: () => 'unused' });
  if (outcome.kind !== 'run') throw new Error(`the controller would not start: ${outcome.kind === 'invalid' ? outcome.problems.join('; ') : outcome.kind}`);
  if (outcome.config.mode === 'operator') throw new Error('the kustomize controller runs as one instance, not --operator');
  return outcome.config;
}
