import { EgressGate, type EgressGateApi } from '@cli-mcp/kube';
import type { Clock } from '@cli-mcp/common';

/**
 * One fail-closed egress gate per `spec.proxy` instance (C-EGR-6): the controller's `EgressGate`, unchanged, on
 * the operator's namespace. The instance's pool refill asks it before every create (as the controller's does), with
 * fresh lists; `Ready` applies the same verdict to the informers instead (instance-reconciler.ts, C-OP-6).
 */
export class EgressGates {
  private readonly gates = new Map<string, EgressGate>();

  constructor(private readonly options: { readonly api: EgressGateApi; readonly clock: Clock }) {}

  get(instance: string): EgressGate {
    let gate = this.gates.get(instance);
    if (!gate) this.gates.set(instance, (gate = new EgressGate({ api: this.options.api, instance, clock: this.options.clock })));
    return gate;
  }

  remove(instance: string): void {
    this.gates.delete(instance);
  }
}
