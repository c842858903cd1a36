import { EgressGate, type EgressGateApi } from '@cli-mcp/kube';
import type { Clock } from '@cli-mcp/common';
import { sandboxWithoutDns, type SandboxPodConfig } from '@cli-mcp/podspec';

/**
 * One fail-closed egress gate per `spec.proxy` instance (C-EGR-6): the controller's `EgressGate`, unchanged, on
 * the operator's namespace. The instance's pool refill asks it before every create (as the controller's does), with
 * fresh lists; `Ready` applies the same verdict to the informers instead (instance-reconciler.ts, C-OP-6).
 */
export class EgressGates {
  private readonly gates = new Map<string, { gate: EgressGate; readProxyAddress: boolean }>();

  constructor(private readonly options: { readonly api: EgressGateApi; readonly clock: Clock }) {}

  /** The instance's gate; a new one when its pods' DNS mode changed (`spec.proxy.sandboxDns`: the Service read). */
  get(instance: string, podConfig: SandboxPodConfig): EgressGate {
    const readProxyAddress = sandboxWithoutDns(podConfig);
    let entry = this.gates.get(instance);
    if (entry?.readProxyAddress !== readProxyAddress) {
      entry = { gate: new EgressGate({ api: this.options.api, instance, clock: this.options.clock, readProxyAddress }), readProxyAddress };
      this.gates.set(instance, entry);
    }
    return entry.gate;
  }

  remove(instance: string): void {
    this.gates.delete(instance);
  }
}
