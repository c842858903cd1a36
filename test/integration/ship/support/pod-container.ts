import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import type { Stage } from './containerfile.js';
import type { ContainerRun } from './pod-runner.js';
import type { TestNetns } from './netns.js';

/** What the cluster would supply: Secret data by name, downward-API values by field path. */
export interface ClusterInputs {
  readonly secrets: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly fieldRefs: Readonly<Record<string, string>>;
  /** Where mounted Secret volumes are written. */
  readonly scratch: string;
}

/** The container paths a pod mounts into `container` (created in the image root as mount points). */
export function mountPaths(container: V1Container): string[] {
  return (container.volumeMounts ?? []).map((mount) => mount.mountPath);
}

/**
 * Translates one container of a pod spec into a run of the assembled image, with the kubelet's rules: `command`
 * replaces ENTRYPOINT and drops CMD, `args` replaces CMD, `$(VAR)` expands from the container's env (`$$` escapes),
 * env values come from literals, Secrets and the downward API, emptyDirs are fresh and Secret volumes are files.
 */
export function containerRun(runtime: Stage, root: string, pod: V1PodSpec, container: V1Container, inputs: ClusterInputs, uid: number, netns: TestNetns): ContainerRun {
  const env = new Map<string, string>(runtime.env);
  for (const variable of container.env ?? []) env.set(variable.name, envValue(variable, env, inputs));
  const expand = (text: string): string => expandKubeVariables(text, env);
  const entrypoint = container.command?.map(expand) ?? runtime.entrypoint ?? [];
  const cmd = container.args?.map(expand) ?? (container.command ? [] : (runtime.cmd ?? []));
  const emptyDirs: string[] = [];
  const files: Array<{ host: string; path: string }> = [];
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.volumes ?? []).find((v) => v.name === mount.name);
    if (!volume) throw new Error(`container ${container.name} mounts ${mount.name}, which the pod does not define`);
    if (volume.emptyDir) {
      emptyDirs.push(mount.mountPath);
    } else if (volume.secret) {
      const data = inputs.secrets[volume.secret.secretName ?? ''];
      if (!data) throw new Error(`volume ${volume.name}: Secret ${volume.secret.secretName} is not supplied`);
      const dir = join(inputs.scratch, `volume-${volume.name}`);
      const items = volume.secret.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of items) {
        if (data[item.key] === undefined) throw new Error(`volume ${volume.name}: Secret ${volume.secret.secretName} has no key ${item.key}`);
        mkdirSync(dirname(join(dir, item.path)), { recursive: true });
        writeFileSync(join(dir, item.path), data[item.key]!, { mode: 0o644 });
      }
      files.push({ host: dir, path: mount.mountPath });
    } else {
      throw new Error(`volume ${volume.name}: only emptyDir and secret volumes are modelled here`);
    }
  }
  const runAs = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser ?? uid;
  return { root, argv: [...entrypoint, ...cmd], uid: runAs, workdir: container.workingDir ?? runtime.workdir, env: [...env], emptyDirs, files, netns };
}

function envValue(variable: NonNullable<V1Container['env']>[number], env: ReadonlyMap<string, string>, inputs: ClusterInputs): string {
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
