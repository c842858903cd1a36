import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isJsonObject, type KubeObject } from '../api/types.js';
import type { SecretLookup } from './env-resolver.js';
import type { LoopbackIpPool } from './ip-pool.js';

type Json = Record<string, unknown>;

/** Local directories standing in for a pod's volumes. */
export interface SandboxDirs {
  root: string;
  /** Where `/workspace` (or the workspace emptyDir) lives; the agent's SANDBOX_WORKDIR. */
  workdir: string;
  tmp: string;
  /** Container mount path → local directory (emptyDir and secret volumes). */
  mounts: Map<string, string>;
}

/** A volume the kubelet could not set up (the pod stays in ContainerCreating). */
export interface MountFailure {
  volume: string;
  message: string;
}

/** Whether `address:port` can be bound right now (nothing else listens there). */
export function addressFree(address: string, port: number): Promise<boolean> {
  return new Promise((resolveCheck) => {
    const probe = createServer();
    probe.once('error', () => resolveCheck(false));
    probe.listen({ host: address, port, exclusive: true }, () => probe.close(() => resolveCheck(true)));
  });
}

/**
 * The agent's port: the container's first declared containerPort, else a literal `SANDBOX_AGENT_PORT` env value,
 * else `fallback` (8090).
 */
export function agentPortOf(container: Json, fallback: number): number {
  const declared = (Array.isArray(container['ports']) ? container['ports'] : []).find((p) => isJsonObject(p) && typeof p['containerPort'] === 'number');
  if (isJsonObject(declared)) return declared['containerPort'] as number;
  const env = (Array.isArray(container['env']) ? container['env'] : []).find((e) => isJsonObject(e) && e['name'] === 'SANDBOX_AGENT_PORT');
  if (isJsonObject(env) && /^\d+$/.test(String(env['value']))) return Number(env['value']);
  return fallback;
}

/** Allocates a pod address whose `port` is free (another process, e.g. a parallel test run, may hold one). */
export async function allocatePodAddress(ips: LoopbackIpPool, port: number): Promise<string> {
  const busy = new Set<string>();
  for (let attempt = 0; attempt < 16; attempt++) {
    const ip = ips.allocate(busy);
    if (await addressFree(ip, port)) return ip;
    busy.add(ip);
    ips.release(ip);
  }
  return ips.allocate(busy);
}

/**
 * Creates the pod's directories: one per emptyDir/secret/configMap volume mounted by the first container, plus
 * `workspace` and `tmp`. Secret volumes are materialised as one file per key; configMap volumes likewise, only the
 * listed `items` (key → path) when given (the egress gateway's sandbox ConfigMap: the dummy kubeconfig and CA). A
 * missing Secret or ConfigMap fails the mount unless the volume is optional or `requireSecretVolumes` is false.
 */
export async function prepareSandboxDirs(
  root: string,
  pod: KubeObject,
  container: Json,
  lookupSecret: SecretLookup,
  requireSecretVolumes: boolean,
  lookupConfigMap: SecretLookup = () => undefined,
): Promise<{ dirs: SandboxDirs; failure?: MountFailure }> {
  const spec = isJsonObject(pod['spec']) ? pod['spec'] : {};
  const volumes = new Map<string, Json>();
  for (const v of Array.isArray(spec['volumes']) ? spec['volumes'] : []) {
    if (isJsonObject(v) && typeof v['name'] === 'string') volumes.set(v['name'], v);
  }
  const mounts = new Map<string, string>();
  await mkdir(join(root, 'tmp'), { recursive: true });
  for (const mount of Array.isArray(container['volumeMounts']) ? container['volumeMounts'] : []) {
    if (!isJsonObject(mount) || typeof mount['mountPath'] !== 'string' || typeof mount['name'] !== 'string') continue;
    const volume = volumes.get(mount['name']);
    if (!volume) continue;
    const local = join(root, 'volumes', mount['name']);
    await mkdir(local, { recursive: true });
    const secretSource = volume['secret'];
    if (isJsonObject(secretSource)) {
      const secretName = String(secretSource['secretName'] ?? '');
      const secret = lookupSecret(pod.metadata.namespace ?? 'default', secretName);
      if (!secret) {
        if (secretSource['optional'] !== true && requireSecretVolumes) {
          return {
            dirs: { root, workdir: join(root, 'workspace'), tmp: join(root, 'tmp'), mounts },
            failure: { volume: mount['name'], message: `MountVolume.SetUp failed for volume "${mount['name']}" : secret "${secretName}" not found` },
          };
        }
      } else {
        const data = isJsonObject(secret['data']) ? secret['data'] : {};
        for (const [key, value] of Object.entries(data)) {
          await writeFile(join(local, key), Buffer.from(String(value), 'base64'), { mode: 0o600 });
        }
      }
    }
    const configMapSource = volume['configMap'];
    if (isJsonObject(configMapSource)) {
      const name = String(configMapSource['name'] ?? '');
      const configMap = lookupConfigMap(pod.metadata.namespace ?? 'default', name);
      if (!configMap) {
        if (configMapSource['optional'] !== true && requireSecretVolumes) {
          return {
            dirs: { root, workdir: join(root, 'workspace'), tmp: join(root, 'tmp'), mounts },
            failure: { volume: mount['name'], message: `MountVolume.SetUp failed for volume "${mount['name']}" : configmap "${name}" not found` },
          };
        }
      } else {
        const data = isJsonObject(configMap['data']) ? configMap['data'] : {};
        const items = Array.isArray(configMapSource['items']) ? configMapSource['items'].filter(isJsonObject) : undefined;
        const files = items === undefined ? Object.keys(data).map((key) => [key, key] as const) : items.map((item) => [String(item['key']), String(item['path'])] as const);
        for (const [key, path] of files) if (typeof data[key] === 'string') await writeFile(join(local, path), data[key], { mode: 0o644 });
      }
    }
    mounts.set(mount['mountPath'].replace(/\/+$/, ''), local);
  }
  const workdir = mounts.get('/workspace') ?? join(root, 'workspace');
  await mkdir(workdir, { recursive: true });
  return { dirs: { root, workdir, tmp: join(root, 'tmp'), mounts } };
}

/** Rewrites an env value that points into a mounted volume (`/workspace/x`) to the local directory. */
export function mapPath(value: string, mounts: ReadonlyMap<string, string>): string {
  for (const [mountPath, local] of mounts) {
    if (value === mountPath) return local;
    if (value.startsWith(`${mountPath}/`)) return `${local}${value.slice(mountPath.length)}`;
  }
  return value;
}

/** Deletes a pod's directories (best effort). */
export async function removeSandboxDirs(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true }).catch(() => undefined);
}
