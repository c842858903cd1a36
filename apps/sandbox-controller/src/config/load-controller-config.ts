import { FlagReader, type ConfigOutcome, parseHostPort, readRawFlags, readSettings, renderHelp } from '@cli-mcp/common';
import { readKubernetesSettings } from '@cli-mcp/kube';
import type { SandboxControllerConfig } from './controller-config.js';
import { CONTROLLER_FLAGS, CONTROLLER_HELP_GROUPS, ENV_PREFIX } from './controller-flags.js';
import { ControllerSettings } from './controller-settings.js';
import { readOperatorConfig } from './load-operator-config.js';
import { OperatorSettings } from './operator-settings.js';

/** What the loader needs from the process, injected so tests run without one. */
export interface ControllerConfigEnvironment {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly version: string;
  readonly hostname: string;
  /** Suffix of the default identity. */
  randomSuffix(): string;
}

export type ControllerConfigOutcome = ConfigOutcome<SandboxControllerConfig>;

/**
 * argv + env → the typed configuration (C-CFG-1): every problem collected, each naming flag and env var; the
 * caller prints them and exits 1 before anything starts. The Kubernetes flags are the server's (one definition).
 */
export function loadControllerConfig(io: ControllerConfigEnvironment): ControllerConfigOutcome {
  const flags = new FlagReader(CONTROLLER_FLAGS, readRawFlags(CONTROLLER_FLAGS, io.argv, io.env, ENV_PREFIX), ENV_PREFIX);
  if (flags.boolean('help')) return { kind: 'help', text: controllerHelpText(io.version) };
  if (flags.boolean('version')) return { kind: 'version', text: `sandbox-controller ${io.version}\n` };
  const warnings: string[] = [];
  const settings = readSettings(ControllerSettings, flags);
  const address = parseHostPort(settings.address);
  if (!address.ok) flags.invalid('address', `${address.error}; expected host:port such as 0.0.0.0:8081`);
  const operator = readSettings(OperatorSettings, flags);
  if (operator.operator) return readOperatorConfig(flags, settings, operator, address, io);
  const kubernetes = readKubernetesSettings(flags, true, settings.podTimeouts, warnings);
  if (flags.problems.length > 0 || !kubernetes.podConfig || !address.ok) return { kind: 'invalid', problems: flags.problems };
  return {
    kind: 'run',
    warnings,
    config: {
      version: io.version,
      http: { address: settings.address, host: address.value.host, port: address.value.port },
      identity: settings.identity ?? `${io.hostname}-${io.randomSuffix()}`,
      kubeconfig: kubernetes.settings.kubeconfig,
      podConfig: kubernetes.podConfig,
      pool: { size: settings.warmPoolSize, shortfallGraceMs: settings.poolShortfallGraceMs },
      gc: {
        idleTimeoutMs: settings.idleTimeoutMs,
        maxSessionAgeMs: settings.maxSessionAgeMs ? settings.maxSessionAgeMs : undefined,
        orphanSecretGraceMs: settings.orphanSecretGraceMs,
      },
      leaseDurationMs: settings.leaseDurationMs,
      logLevel: settings.logLevel,
    },
  };
}

export function controllerHelpText(version: string): string {
  return renderHelp(CONTROLLER_FLAGS, {
    title: `sandbox-controller ${version} — warm pool, idle and age GC for cli-mcp-server's Kubernetes sandboxes (leader-elected); with --operator, the CliMcpInstance operator.`,
    usage: 'sandbox-controller [flags]',
    envPrefix: ENV_PREFIX,
    groupOrder: CONTROLLER_HELP_GROUPS,
    footer: [
      'Every flag can also be set in the environment (the env name is listed); a flag on the command line wins.',
      'Durations use Go syntax: 90s, 5m, 1h30m. Empty values count as unset.',
      'Run it with the same Kubernetes flags as the server, so pool pods match the server\'s pods.',
    ].join('\n'),
  });
}
