import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import type { Stage } from './containerfile.js';
import type { ContainerRun } from './pod-runner.js';
import type { TestNetns } from './netns.js';

/** What the cluster would supply: Secret and ConfigMap data by name, downward-API values by field path. */
export interface ClusterInputs {
  readonly secrets: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly configMaps?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly fieldRefs: Readonly<Record<string, string>>;
  /** Where mounted Secret and ConfigMap volumes are written. */
  readonly scratch: string;
}

/** The container paths a pod mounts into `container` (created in the image root as mount points). */
export function mountPaths(container: V1Container): string[] {
  return (container.volumeMounts ?? []).map((mount) => mount.mountPath);
}

/**
 * The environment and argv a container starts with, by the kubelet's rules: the image ENV, then `envFrom`
 * ConfigMaps in order, then `env` (later wins); env values come from literals, Secrets and the downward API, and
 * `$(VAR)` expands from the variables defined before it (`$$` escapes). `command` replaces ENTRYPOINT and drops
 * CMD, `args` replaces CMD.
 */
export function containerProcess(image: Pick<Stage, 'env' | 'entrypoint' | 'cmd'>, container: V1Container, inputs: Pick<ClusterInputs, 'secrets' | 'configMaps' | 'fieldRefs'>): { env: Map<string, string>; argv: string[] } {
  const env = new Map<string, string>(image.env);
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name;
    if (name === undefined || source.secretRef) throw new Error(`container ${container.name}: only envFrom configMapRef is modelled here`);
    const data = inputs.configMaps?.[name];
    if (!data) throw new Error(`container ${container.name}: envFrom ConfigMap ${name} is not supplied`);
    for (const [key, value] of Object.entries(data)) env.set(`${source.prefix ?? ''}${key}`, value);
  }
  for (const variable of container.env ?? []) env.set(variable.name, envValue(variable, env, inputs));
  const expand = (text: string): string => expandKubeVariables(text, env);
  const entrypoint = container.command?.map(expand) ?? image.entrypoint ?? [];
  const cmd = container.args?.map(expand) ?? (container.command ? [] : (image.cmd ?? []));
  return { env, argv: [...entrypoint, ...cmd] };
}

/**
 * Translates one container of a pod spec into a run of the assembled image (`containerProcess`'s env and argv),
 * emptyDirs fresh, Secret and ConfigMap volumes as files.
 */
export function containerRun(runtime: Stage, root: string, pod: V1PodSpec, container: V1Container, inputs: ClusterInputs, uid: number, netns: TestNetns): ContainerRun {
  const { env, argv } = containerProcess(runtime, container, inputs);
  const emptyDirs: string[] = [];
  const files: Array<{ host: string; path: string }> = [];
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.volumes ?? []).find((v) => v.name === mount.name);
    if (!volume) throw new Error(`container ${container.name} mounts ${mount.name}, which the pod does not define`);
    if (volume.emptyDir) {
      emptyDirs.push(mount.mountPath);
    } else if (volume.secret || volume.configMap) {
      // Both project their keys (or the listed items) as read-only files; only where the data comes from differs.
      const [kind, name, items] = volume.secret
        ? ['Secret', volume.secret.secretName ?? '', volume.secret.items] as const
        : ['ConfigMap', volume.configMap!.name ?? '', volume.configMap!.items] as const;
      const data = kind === 'Secret' ? inputs.secrets[name] : inputs.configMaps?.[name];
      if (!data) throw new Error(`volume ${volume.name}: ${kind} ${name} is not supplied`);
      const dir = join(inputs.scratch, `volume-${volume.name}`);
      for (const item of items ?? Object.keys(data).map((key) => ({ key, path: key }))) {
        if (data[item.key] === undefined) throw new Error(`volume ${volume.name}: ${kind} ${name} has no key ${item.key}`);
        mkdirSync(dirname(join(dir, item.path)), { recursive: true });
        writeFileSync(join(dir, item.path), data[item.key]!, { mode: 0o644 });
      }
      files.push({ host: dir, path: mount.mountPath });
    } else {
      throw new Error(`volume ${volume.name}: only emptyDir, secret and configMap volumes are modelled here`);
    }
  }
  const runAs = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser ?? uid;
  return { root, argv, uid: runAs, workdir: container.workingDir ?? runtime.workdir, env: [...env], emptyDirs, files, netns };
}

function envValue(variable: NonNullable<V1Container['env']>[number], env: ReadonlyMap<string, string>, inputs: Pick<ClusterInputs, 'secrets' | 'fieldRefs'>): string {
  if (variable.value !== undefined) return expandKubeVariables(variable.value, env);
  const secret = variable.valueFrom?.secretKeyRef;
  if (secret) {
    const value = inputs.secrets[secret.name ?? '']?.[secret.key];
    if (value === undefined) throw new Error(`env ${variable.name}: Secret ${secret.name} key ${secret.key} is not supplied`);
    return value;
  }
  const field = variable.valueFrom?.fieldRef?.fieldPath;
  if (field !== undefined) {
    const value = inputs.fieldRefs[field];
    if (value === undefined) throw new Error(`env ${variable.name}: downward-API field ${field} is not supplied`);
    return value;
  }
  throw new Error(`env ${variable.name}: only value, secretKeyRef and fieldRef are modelled here`);
}

/** Kubernetes' `$(VAR)` references (unknown ones stay as written, `$$` is a literal `$`). */
function expandKubeVariables(text: string, env: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, name?: string) => (name === undefined ? '$' : (env.get(name) ?? all)));
}
