import type { ConfigOutcome, FlagReader, HostPort } from '@cli-mcp/common';
import { isDnsLabel } from '@cli-mcp/podspec';
import { readKubernetesSettings } from '@cli-mcp/kube';
import type { SandboxControllerConfig } from './controller-config.js';
import type { ControllerSettings } from './controller-settings.js';
import type { ControllerConfigEnvironment } from './load-controller-config.js';
import type { OperatorSettings } from './operator-settings.js';

/**
 * Flags that configure ONE instance: under `--operator` each CliMcpInstance sets them (the field named here), so
 * giving one is a mistake worth refusing rather than a value silently ignored (C-CFG-1).
 */
const INSTANCE_FLAGS: Readonly<Record<string, string>> = {
  namespace: '--watch-namespace',
  'instance-name': 'metadata.name',
  'sandbox-image': 'spec.sandbox.image (or --default-sandbox-image)',
  'kubeconfig-secret': 'spec.proxy.targets[].secretName (default cli-mcp-<name>-kubeconfig)',
  'sandbox-service-account': 'the operator-made cli-mcp-<name>-sandbox',
  'sandbox-cpu-request': 'spec.sandbox.resources.requests.cpu',
  'sandbox-cpu-limit': 'spec.sandbox.resources.limits.cpu',
  'sandbox-memory-request': 'spec.sandbox.resources.requests.memory',
  'sandbox-memory-limit': 'spec.sandbox.resources.limits.memory',
  'sandbox-image-pull-policy': 'spec.sandbox.imagePullPolicy',
  'sandbox-env': 'spec.sandbox.env',
  'sandbox-workspace-size-limit': 'the default (1Gi)',
  'sandbox-tmp-size-limit': 'the default (256Mi)',
  'sandbox-termination-grace-period': 'the default (max-timeout + 10)',
  'sandbox-runtime-class': 'nothing yet (not a CliMcpInstance field)',
  'egress-gateway': 'spec.proxy (the operator deploys the instance\'s egress gateway and passes --egress-gateway itself)',
  'warm-pool-size': 'spec.sandbox.warmPoolSize',
  'idle-timeout': 'spec.sandbox.idleTimeout',
  'max-session-age': 'spec.sandbox.maxSessionAge',
};

/** The `--operator` branch of the controller's loader: its own required flags, and no instance flags. */
export function readOperatorConfig(
  flags: FlagReader,
  settings: ControllerSettings,
  operator: OperatorSettings,
  address: { ok: true; value: HostPort } | { ok: false },
  io: ControllerConfigEnvironment,
): ConfigOutcome<SandboxControllerConfig> {
  const kubernetes = readKubernetesSettings(flags, false, settings.podTimeouts, []);
  for (const [flag, field] of Object.entries(INSTANCE_FLAGS)) {
    if (flags.source(flag) !== 'default') flags.invalid(flag, `does not apply with --operator: each CliMcpInstance sets it (${field})`);
  }
  const namespace = operator.watchNamespace;
  if (namespace === undefined) flags.fail(`${flags.label('watch-namespace')} is required with --operator`);
  else if (!isDnsLabel(namespace)) flags.invalid('watch-namespace', 'must be a DNS-1123 label (a namespace name)');
  for (const flag of ['server-image', 'default-sandbox-image'] as const) {
    const image = flags.string(flag);
    if (image === undefined) flags.fail(`${flags.label(flag)} is required with --operator`);
    else if (/\s/.test(image)) flags.invalid(flag, 'must not contain whitespace');
  }
  if (flags.problems.length > 0 || !address.ok) return { kind: 'invalid', problems: flags.problems };
  return {
    kind: 'run',
    warnings: [],
    config: {
      mode: 'operator',
      version: io.version,
      http: { address: settings.address, host: address.value.host, port: address.value.port },
      identity: settings.identity ?? `${io.hostname}-${io.randomSuffix()}`,
      kubeconfig: kubernetes.settings.kubeconfig,
      watchNamespace: namespace!,
      images: { server: operator.serverImage!, sandbox: operator.defaultSandboxImage!, egress: operator.egressImage },
      timeouts: settings.podTimeouts,
      leaseDurationMs: settings.leaseDurationMs,
      orphanSecretGraceMs: settings.orphanSecretGraceMs,
      poolShortfallGraceMs: settings.poolShortfallGraceMs,
      logLevel: settings.logLevel,
    },
  };
}
