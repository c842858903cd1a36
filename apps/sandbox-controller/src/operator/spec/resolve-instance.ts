import { formatDuration, parseDuration } from '@cli-mcp/common';
import { instanceNameProblem, validateSandboxPodConfig, type SandboxFlagNames, type SandboxPodConfig } from '@cli-mcp/podspec';
import type { CliMcpInstance, ProxySpec, QuantityValue } from '../api/climcpinstance.js';
import { childNames } from '../children/child-names.js';
import { resolveServerContainer, type ServerContainerSettings } from './server-container.js';

/** What every instance inherits from the operator's own configuration (flags and RELATED_IMAGE_*). */
export interface OperatorDefaults {
  /** The namespace the operator watches: every instance's namespace. */
  readonly namespace: string;
  readonly serverImage: string;
  /** Used when `spec.sandbox.image` is empty. */
  readonly sandboxImage: string;
  /** The server's and the agents' command timeouts (`--max-timeout`, `--default-timeout`), whole seconds. */
  readonly maxTimeoutSeconds: number;
  readonly defaultTimeoutSeconds: number;
}

/** A CR turned into everything the children, the pool and the GC need (C-OP-1), validated once. */
export interface ResolvedInstance {
  readonly name: string;
  readonly replicas: number;
  /** The sandbox pods' configuration: the server builds the very same one from the rendered args (C-CTL-2). */
  readonly podConfig: SandboxPodConfig;
  readonly warmPoolSize: number;
  readonly idleTimeoutMs: number;
  /** undefined = off. */
  readonly maxSessionAgeMs: number | undefined;
  readonly server: ServerContainerSettings;
  /** The yield point of `bash` calls (`--yield-after`), as written in the CR; undefined = the server's default. */
  readonly yieldAfter: string | undefined;
  readonly proxy: ProxySpec | undefined;
}

export type ResolveResult = { readonly ok: true; readonly instance: ResolvedInstance } | { readonly ok: false; readonly errors: string[] };

/** How the sandbox settings are named in messages: the CR field paths, never flags. */
const FIELD_NAMES: Partial<SandboxFlagNames> = {
  namespace: 'metadata.namespace',
  instanceName: 'metadata.name',
  image: 'spec.sandbox.image',
  imagePullPolicy: 'spec.sandbox.imagePullPolicy',
  cpuRequest: 'spec.sandbox.resources.requests.cpu',
  cpuLimit: 'spec.sandbox.resources.limits.cpu',
  memoryRequest: 'spec.sandbox.resources.requests.memory',
  memoryLimit: 'spec.sandbox.resources.limits.memory',
  env: 'spec.sandbox.env',
  sandboxDns: 'spec.proxy.sandboxDns',
  maxTimeoutSeconds: 'the operator\'s --max-timeout',
  defaultTimeoutSeconds: 'the operator\'s --default-timeout',
};

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;

/**
 * Validates a CR against what the schema cannot say (quantity precision, requests ≤ limits, duration bounds, env
 * shapes) with the same validators the flags use (libs/podspec), every problem naming its CR field. A CR the API
 * server already checked normally passes; one that does not makes the instance `Reconciling` with these messages.
 */
export function resolveInstance(cr: CliMcpInstance, defaults: OperatorDefaults): ResolveResult {
  const name = cr.metadata.name ?? '';
  const spec = cr.spec ?? {};
  const sandbox = spec.sandbox ?? {};
  const names = childNames(name);
  // Every object name derives from it: a bad one is the only problem worth naming.
  const nameProblem = instanceNameProblem(name);
  if (nameProblem !== undefined) return { ok: false, errors: [`metadata.name ${JSON.stringify(name)} ${nameProblem}`] };
  const errors: string[] = [];
  const pod = validateSandboxPodConfig(
    {
      namespace: defaults.namespace,
      instanceName: name,
      image: sandbox.image?.trim() ? sandbox.image : defaults.sandboxImage,
      imagePullPolicy: sandbox.imagePullPolicy,
      serviceAccountName: names.sandboxServiceAccount,
      kubeconfigSecret: kubeconfigSecretOf(name, spec.proxy),
      // spec.proxy: the sandboxes get the egress pod configuration (proxy env, gateway CA, the dummy kubeconfig, never
      // the Secret), exactly what the server builds from `--egress-gateway` (server-args.ts), so the hashes match.
      egressGateway: spec.proxy !== undefined,
      sandboxDns: spec.proxy?.sandboxDns,
      cpuRequest: text(sandbox.resources?.requests?.cpu),
      cpuLimit: text(sandbox.resources?.limits?.cpu),
      memoryRequest: text(sandbox.resources?.requests?.memory),
      memoryLimit: text(sandbox.resources?.limits?.memory),
      env: sandbox.env ?? [],
      maxTimeoutSeconds: defaults.maxTimeoutSeconds,
      defaultTimeoutSeconds: defaults.defaultTimeoutSeconds,
    },
    FIELD_NAMES,
  );
  if (!pod.ok) errors.push(...pod.errors);
  // Reserved env names are refused by the schema's CEL; one that slipped through would be dropped silently.
  errors.push(...pod.warnings);

  const replicas = integer(spec.replicas, 1, 1, 50, 'spec.replicas', errors);
  const warmPoolSize = integer(sandbox.warmPoolSize, 0, 0, 1000, 'spec.sandbox.warmPoolSize', errors);
  const idleTimeoutMs = duration(sandbox.idleTimeout, '30m', { minMs: SECOND_MS, maxMs: 30 * DAY_MS }, 'spec.sandbox.idleTimeout', errors);
  const maxSessionAgeMs = duration(sandbox.maxSessionAge, '0', { minMs: 0, maxMs: 365 * DAY_MS }, 'spec.sandbox.maxSessionAge', errors);
  // The server's own rule for --yield-after (C-MCP-11): 0 = never, else 1 s … 24 h.
  const yieldAfterMs = duration(spec.server?.yieldAfter, '50s', { minMs: 0, maxMs: DAY_MS }, 'spec.server.yieldAfter', errors);
  if (yieldAfterMs !== undefined && yieldAfterMs !== 0 && yieldAfterMs < SECOND_MS) errors.push('spec.server.yieldAfter must be 0 (never) or at least 1s');
  const server = resolveServerContainer(spec.serverContainer, defaults.serverImage, errors);

  if (errors.length > 0 || !pod.ok || server === undefined) return { ok: false, errors };
  return {
    ok: true,
    instance: {
      name,
      replicas: replicas!,
      podConfig: pod.config,
      warmPoolSize: warmPoolSize!,
      idleTimeoutMs: idleTimeoutMs!,
      maxSessionAgeMs: maxSessionAgeMs ? maxSessionAgeMs : undefined,
      server,
      yieldAfter: spec.server?.yieldAfter?.trim() ? spec.server.yieldAfter.trim() : undefined,
      proxy: spec.proxy,
    },
  };
}

/** The investigation kubeconfig Secret: a kubernetes target's `secretName`, else the Go name. */
export function kubeconfigSecretOf(instance: string, proxy: ProxySpec | undefined): string {
  const target = proxy?.targets?.find((t) => t.type === 'kubernetes');
  return target?.secretName ?? childNames(instance).kubeconfigSecret;
}

function text(value: QuantityValue | undefined): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

function integer(value: unknown, fallback: number, min: number, max: number, field: string, errors: string[]): number | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  errors.push(`${field} must be an integer between ${min} and ${max} (got ${JSON.stringify(value)})`);
  return undefined;
}

function duration(value: unknown, fallback: string, range: { minMs: number; maxMs: number }, field: string, errors: string[]): number | undefined {
  const given = typeof value === 'string' && value.trim() !== '' ? value.trim() : value === undefined || value === null ? fallback : undefined;
  if (given === undefined) {
    errors.push(`${field} must be a duration such as 90s, 30m or 1h30m (got ${JSON.stringify(value)})`);
    return undefined;
  }
  const parsed = parseDuration(given);
  if (!parsed.ok) {
    errors.push(`${field}: ${parsed.error}`);
    return undefined;
  }
  if (parsed.ms < range.minMs || parsed.ms > range.maxMs) {
    errors.push(`${field} must be between ${formatDuration(range.minMs)} and ${formatDuration(range.maxMs)} (got ${JSON.stringify(given)})`);
    return undefined;
  }
  return parsed.ms;
}

