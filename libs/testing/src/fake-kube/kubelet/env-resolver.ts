import { isJsonObject, type KubeObject } from '../api/types.js';

type Json = Record<string, unknown>;

/** Looks up a Secret in the store (undefined when missing). */
export type SecretLookup = (namespace: string, name: string) => KubeObject | undefined;

/** Why a container cannot start yet; the kubelet reports it as the container's waiting state. */
export interface ContainerConfigError {
  reason: 'CreateContainerConfigError';
  message: string;
}

export type EnvResult = { ok: true; env: Record<string, string> } | { ok: false; error: ContainerConfigError };

function configError(message: string): EnvResult {
  return { ok: false, error: { reason: 'CreateContainerConfigError', message } };
}

function secretValue(secret: KubeObject, key: string): string | undefined {
  const data = secret['data'];
  if (!isJsonObject(data) || typeof data[key] !== 'string') return undefined;
  return Buffer.from(data[key] as string, 'base64').toString('utf8');
}

/** `$(VAR)` references to earlier variables, `$$` escapes a literal `$(`, unknown references stay as written. */
export function expandEnvReferences(value: string, env: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\(([^)]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && Object.prototype.hasOwnProperty.call(env, name) ? (env[name] as string) : match;
  });
}

function fieldRefValue(pod: KubeObject, fieldPath: string, podIp: string, nodeName: string): string {
  const meta = pod.metadata;
  const labelMatch = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (labelMatch) {
    const bag = labelMatch[1] === 'labels' ? meta.labels : meta.annotations;
    return bag?.[labelMatch[2] as string] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'spec.nodeName':
      return nodeName;
    case 'spec.serviceAccountName':
      return String((pod['spec'] as Json | undefined)?.['serviceAccountName'] ?? '');
    case 'status.podIP':
    case 'status.hostIP':
      return fieldPath === 'status.podIP' ? podIp : '127.0.0.1';
    default:
      return '';
  }
}

/**
 * Resolves a container's `env` and `envFrom` like the kubelet does at container start: literal values with
 * `$(VAR)` expansion, `secretKeyRef` (a missing Secret or key blocks the start unless `optional`), `fieldRef`.
 * ConfigMaps are not served by the fake, so a non-optional ConfigMap reference blocks the start.
 */
export function resolveContainerEnv(
  pod: KubeObject,
  container: Json,
  lookupSecret: SecretLookup,
  context: { podIp: string; nodeName: string },
): EnvResult {
  const namespace = pod.metadata.namespace ?? 'default';
  const env: Record<string, string> = {};
  for (const source of Array.isArray(container['envFrom']) ? container['envFrom'] : []) {
    if (!isJsonObject(source)) continue;
    const prefix = typeof source['prefix'] === 'string' ? source['prefix'] : '';
    const secretRef = source['secretRef'];
    if (isJsonObject(secretRef)) {
      const secret = lookupSecret(namespace, String(secretRef['name'] ?? ''));
      if (!secret) {
        if (secretRef['optional'] === true) continue;
        return configError(`secret "${String(secretRef['name'])}" not found`);
      }
      const data = isJsonObject(secret['data']) ? secret['data'] : {};
      for (const key of Object.keys(data)) env[`${prefix}${key}`] = secretValue(secret, key) ?? '';
    }
    const configMapRef = source['configMapRef'];
    if (isJsonObject(configMapRef) && configMapRef['optional'] !== true) {
      return configError(`configmap "${String(configMapRef['name'])}" not found`);
    }
  }
  for (const entry of Array.isArray(container['env']) ? container['env'] : []) {
    if (!isJsonObject(entry) || typeof entry['name'] !== 'string') continue;
    const name = entry['name'];
    const from = entry['valueFrom'];
    if (!isJsonObject(from)) {
      env[name] = expandEnvReferences(typeof entry['value'] === 'string' ? entry['value'] : '', env);
      continue;
    }
    const secretKeyRef = from['secretKeyRef'];
    if (isJsonObject(secretKeyRef)) {
      const secretName = String(secretKeyRef['name'] ?? '');
      const key = String(secretKeyRef['key'] ?? '');
      const optional = secretKeyRef['optional'] === true;
      const secret = lookupSecret(namespace, secretName);
      if (!secret) {
        if (optional) continue;
        return configError(`secret "${secretName}" not found`);
      }
      const value = secretValue(secret, key);
      if (value === undefined) {
        if (optional) continue;
        return configError(`couldn't find key ${key} in Secret ${namespace}/${secretName}`);
      }
      env[name] = value;
      continue;
    }
    const fieldRef = from['fieldRef'];
    if (isJsonObject(fieldRef)) {
      env[name] = fieldRefValue(pod, String(fieldRef['fieldPath'] ?? ''), context.podIp, context.nodeName);
      continue;
    }
    const configMapKeyRef = from['configMapKeyRef'];
    if (isJsonObject(configMapKeyRef)) {
      if (configMapKeyRef['optional'] === true) continue;
      return configError(`configmap "${String(configMapKeyRef['name'])}" not found`);
    }
    // resourceFieldRef and anything newer: not simulated, the variable is set empty.
    env[name] = '';
  }
  return { ok: true, env };
}
