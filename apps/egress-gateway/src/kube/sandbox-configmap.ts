import { isAlreadyExists, isConflict, isNotFound } from '@cli-mcp/kube';
import type { EgressKubeApi } from './egress-kube-api.port.js';

const ATTEMPTS = 5;

/**
 * Writes the sandbox ConfigMap (`ca.crt`, `kubeconfig`): created when absent, updated when its content differs,
 * left alone when equal. Both replicas write the same content (one shared CA, one kubeconfig), so a lost race —
 * 409 on create or on the resourceVersion of an update — is resolved by reading again: the other replica's write
 * usually already is what this one wanted. Returns what it did.
 */
export async function publishSandboxConfigMap(
  api: EgressKubeApi,
  name: string,
  data: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<'created' | 'updated' | 'unchanged'> {
  for (let attempt = 1; ; attempt++) {
    try {
      const current = await api.getConfigMap(name, signal).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      if (!current) {
        await api.createConfigMap(name, data, signal);
        return 'created';
      }
      if (sameData(current.data, data)) return 'unchanged';
      await api.updateConfigMap(name, data, current.resourceVersion, signal);
      return 'updated';
    } catch (error) {
      if (attempt >= ATTEMPTS || !(isAlreadyExists(error) || isConflict(error))) throw error;
    }
  }
}

function sameData(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
