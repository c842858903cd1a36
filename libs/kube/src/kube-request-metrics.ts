import { Counter, type Registry } from 'prom-client';

/** Name of the Kubernetes request counter (contract §9). */
export const KUBE_REQUESTS_METRIC = 'cli_mcp_kube_requests_total';

export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
/** The resources this project's processes call (the operator's children and CRs included): a bounded label. */
export type KubeResource =
  | 'pods'
  | 'secrets'
  | 'configmaps'
  | 'leases'
  | 'deployments'
  | 'services'
  | 'serviceaccounts'
  | 'roles'
  | 'rolebindings'
  | 'networkpolicies'
  | 'poddisruptionbudgets'
  | 'endpointslices'
  | 'events'
  | 'climcpinstances';

/**
 * `cli_mcp_kube_requests_total{verb,resource,code}`: every request the backend sends, by outcome. `code` is the
 * HTTP status, `error` for transport failures or `aborted` — bounded labels only (never names or messages).
 */
export class KubeRequestMetrics {
  private readonly counter: Counter<'verb' | 'resource' | 'code'>;

  constructor(registry: Registry) {
    // Several backends may share an app registry in tests; registering the name twice would throw.
    const existing = registry.getSingleMetric(KUBE_REQUESTS_METRIC);
    this.counter =
      (existing as Counter<'verb' | 'resource' | 'code'> | undefined) ??
      new Counter({
        name: KUBE_REQUESTS_METRIC,
        help: 'Kubernetes API requests sent by this process, by verb, resource and response code',
        labelNames: ['verb', 'resource', 'code'],
        registers: [registry],
      });
  }

  record(verb: KubeVerb, resource: KubeResource, code: string): void {
    this.counter.inc({ verb, resource, code });
  }
}
