import type { ResolvedInstance } from '../spec/resolve-instance.js';
import type { DesiredChild } from './desired-child.js';

/**
 * What `spec.proxy` asks of the instance (C-OP-3): egress only through the instance's gateway. The seam where the
 * egress gateway's children will be rendered: today the gateway is not deployed by the operator, so an instance with
 * `spec.proxy` is refused — it
 * runs no server and no pool (fail closed: its sandboxes would otherwise hold the credential the user asked to
 * keep out of them) and says why in `Ready` (`EgressNotEnforced`). When the gateway lands, `kind: 'gateway'`
 * carries its Deployment, Service, ConfigMap, CA Secret and NetworkPolicies, and the sandbox NetworkPolicy's
 * egress narrows to the gateway.
 */
export type EgressPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'gateway'; readonly children: readonly DesiredChild[] };

export function planEgress(instance: ResolvedInstance): EgressPlan {
  if (instance.proxy === undefined) return { kind: 'none' };
  return {
    kind: 'refused',
    message:
      'spec.proxy needs the egress gateway, which this operator version does not deploy yet; the instance runs no server and no warm pool until spec.proxy is removed (sandboxes then mount the investigation kubeconfig directly)',
  };
}
