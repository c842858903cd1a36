import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import type { ControllerKubeApi, Preconditions } from '../../kube/controller-kube-api.port.js';
import type { ObjectInformer } from '@cli-mcp/kube';

/**
 * The pool's and GC's `ControllerKubeApi` under the operator: pod calls and Secret deletes go to the API (the
 * controller's own adapter), but `listSecrets` — the GC's orphan sweep every 5 minutes and its lookup of a session's
 * Secret — is answered from the operator's Secret informer, which it keeps anyway for the admin Secrets. So an
 * instance at rest costs no request at all (C-OP-6). Selectors are the equality lists `libs/podspec` builds.
 */
export class CachedSecretsControllerApi implements ControllerKubeApi {
  readonly namespace: string;

  constructor(
    private readonly api: ControllerKubeApi,
    private readonly secrets: ObjectInformer<V1Secret>,
  ) {
    this.namespace = api.namespace;
  }

  getPod(name: string, signal: AbortSignal): Promise<V1Pod> {
    return this.api.getPod(name, signal);
  }

  createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod> {
    return this.api.createPod(pod, signal);
  }

  deletePod(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    return this.api.deletePod(name, preconditions, signal);
  }

  annotatePod(name: string, annotations: Record<string, string | null>, signal: AbortSignal): Promise<V1Pod> {
    return this.api.annotatePod(name, annotations, signal);
  }

  async listSecrets(labelSelector: string): Promise<V1Secret[]> {
    const wanted = equalitySelector(labelSelector);
    return this.secrets.objects().filter((secret) => Object.entries(wanted).every(([key, value]) => secret.metadata?.labels?.[key] === value));
  }

  deleteSecret(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    return this.api.deleteSecret(name, preconditions, signal);
  }
}

/** `a=b,c=d` → `{a: b, c: d}`; anything else is a programming error (the selectors are ours). */
export function equalitySelector(selector: string): Record<string, string> {
  return Object.fromEntries(
    selector.split(',').map((term) => {
      const [key, value, extra] = term.split('=');
      if (!key || value === undefined || extra !== undefined) throw new Error(`not an equality selector: ${selector}`);
      return [key.trim(), value.trim()];
    }),
  );
}
