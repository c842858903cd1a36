import { Flag, FlagGroup } from '@cli-mcp/common';

export const OPERATOR_GROUP = 'Operator (--operator: reconcile CliMcpInstance resources instead of one instance)';

/**
 * The flags of `sandbox-controller --operator` (C-OP-3), declared once. The namespace and images also come from
 * the variables OLM sets (`WATCH_NAMESPACE` from `olm.targetNamespaces`; `RELATED_IMAGE_*`, which OLM rewrites
 * for disconnected mirrors): each flag's `envAlias`. Instance settings (image, resources, pool size, timeouts) are
 * each CR's, so the single-instance flags are refused in this mode (load-controller-config.ts).
 */
@FlagGroup(OPERATOR_GROUP)
export class OperatorSettings {
  @Flag('operator', { type: 'boolean', description: 'Run as the operator: reconcile every CliMcpInstance of --watch-namespace into a running instance (docs/operator.md).' })
  operator!: boolean;

  @Flag('watch-namespace', { valueName: 'name', envAlias: 'WATCH_NAMESPACE', description: 'The namespace whose CliMcpInstances the operator reconciles (its own, OwnNamespace/SingleNamespace install).' })
  watchNamespace?: string;

  @Flag('server-image', { valueName: 'image', envAlias: 'RELATED_IMAGE_SERVER', description: 'Image of every instance\'s MCP server (the Go operator\'s RELATED_IMAGE_SERVER).' })
  serverImage?: string;

  @Flag('default-sandbox-image', { valueName: 'image', envAlias: 'RELATED_IMAGE_SANDBOX', description: 'Sandbox image of instances whose spec.sandbox.image is empty.' })
  defaultSandboxImage?: string;

  @Flag('egress-image', { valueName: 'image', envAlias: 'RELATED_IMAGE_EGRESS', description: 'Image of the egress gateway (cli-mcp-egress) the operator deploys for an instance with spec.proxy; without it such instances are refused (EgressNotEnforced).' })
  egressImage?: string;
}
