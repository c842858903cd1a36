import type { V1EnvVar } from '@kubernetes/client-node';
import { instanceNameProblem, isDnsLabel, isDnsSubdomain } from './identifiers.js';
import { compareQuantities, parseResourceQuantity, type QuantityResult, type ResourceQuantityRules } from './quantity.js';
import {
  DEFAULT_AGENT_PORT,
  DEFAULT_MAX_TIMEOUT_SECONDS,
  DEFAULT_SANDBOX_FLAG_NAMES,
  DEFAULT_SANDBOX_RESOURCES,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_TMP_SIZE_LIMIT,
  DEFAULT_WORKSPACE_SIZE_LIMIT,
  IMAGE_PULL_POLICIES,
  SANDBOX_DNS_MODES,
  TERMINATION_GRACE_MARGIN_SECONDS,
  type ImagePullPolicy,
  type RawSandboxPodConfig,
  type SandboxDns,
  type SandboxFlagNames,
  type SandboxPodConfig,
} from './sandbox-config.js';
import { checkSandboxEnv, decodeSandboxEnv, parseSandboxEnv } from './sandbox-env.js';

/** All problems at once (C-CFG-1), each naming its flag; warnings do not stop startup. */
export type SandboxPodConfigResult =
  | { readonly ok: true; readonly config: SandboxPodConfig; readonly warnings: string[] }
  | { readonly ok: false; readonly errors: string[]; readonly warnings: string[] };

const CPU: ResourceQuantityRules = { unit: 'cpu', positive: false };
const CPU_LIMIT: ResourceQuantityRules = { unit: 'cpu', positive: true };
const BYTES: ResourceQuantityRules = { unit: 'bytes', positive: false };
const BYTES_LIMIT: ResourceQuantityRules = { unit: 'bytes', positive: true };
/** The agent accepts timeouts up to a day (SANDBOX_MAX_TIMEOUT_SECONDS), as the server's flags do. */
const MAX_AGENT_TIMEOUT_SECONDS = 86_400;

/**
 * Validates raw sandbox settings into a {@link SandboxPodConfig}. Blank values are unset: identity fields are
 * then required (Go §7.2 messages, no identity defaults — Go P3), the rest take the Go defaults. Checks are
 * reported in Go's startup order, then this project's additions: quantities (never negative, requests ≤
 * limits, C-K8S-3), pull policy, env overlay, size limits, timeouts (C-AG-14), grace period, agent port,
 * runtime class.
 * `flagNames` overrides how fields are named in messages (e.g. to add the env variable, C-CFG-1).
 */
export function validateSandboxPodConfig(
  raw: RawSandboxPodConfig,
  flagNames: Partial<SandboxFlagNames> = {},
): SandboxPodConfigResult {
  const flags: SandboxFlagNames = { ...DEFAULT_SANDBOX_FLAG_NAMES, ...flagNames };
  const errors: string[] = [];
  const warnings: string[] = [];

  const image = required(raw.image, flags.image, errors, (v) => (/\s/.test(v) ? 'must not contain whitespace' : undefined));
  const namespace = required(raw.namespace, flags.namespace, errors, (v) =>
    isDnsLabel(v) ? undefined : 'must be a DNS-1123 label (lowercase letters, digits and "-", at most 63 characters)',
  );
  const instanceName = required(raw.instanceName, flags.instanceName, errors, instanceNameProblem);
  const kubeconfigSecret = required(raw.kubeconfigSecret, flags.kubeconfigSecret, errors, subdomainProblem);
  const serviceAccountName = required(raw.serviceAccountName, flags.serviceAccountName, errors, subdomainProblem);

  const resources = {
    cpuRequest: quantity(raw.cpuRequest, DEFAULT_SANDBOX_RESOURCES.cpuRequest, flags.cpuRequest, CPU, errors),
    cpuLimit: quantity(raw.cpuLimit, DEFAULT_SANDBOX_RESOURCES.cpuLimit, flags.cpuLimit, CPU_LIMIT, errors),
    memoryRequest: quantity(raw.memoryRequest, DEFAULT_SANDBOX_RESOURCES.memoryRequest, flags.memoryRequest, BYTES, errors),
    memoryLimit: quantity(raw.memoryLimit, DEFAULT_SANDBOX_RESOURCES.memoryLimit, flags.memoryLimit, BYTES_LIMIT, errors),
  };
  requestWithinLimit(resources.cpuRequest, resources.cpuLimit, flags.cpuRequest, flags.cpuLimit, errors);
  requestWithinLimit(resources.memoryRequest, resources.memoryLimit, flags.memoryRequest, flags.memoryLimit, errors);

  const pullPolicyText = blankToUndefined(raw.imagePullPolicy);
  let imagePullPolicy: ImagePullPolicy | undefined;
  if (pullPolicyText !== undefined) {
    if ((IMAGE_PULL_POLICIES as readonly string[]).includes(pullPolicyText)) imagePullPolicy = pullPolicyText as ImagePullPolicy;
    else errors.push(`${flags.imagePullPolicy} must be Always, Never, or IfNotPresent`);
  }

  const env = envOverlay(raw.env, flags.env, errors, warnings);
  const workspace = quantity(raw.workspaceSizeLimit, DEFAULT_WORKSPACE_SIZE_LIMIT, flags.workspaceSizeLimit, BYTES_LIMIT, errors);
  const tmp = quantity(raw.tmpSizeLimit, DEFAULT_TMP_SIZE_LIMIT, flags.tmpSizeLimit, BYTES_LIMIT, errors);
  const timeouts = agentTimeouts(raw, flags, errors);
  // A command may run up to the max timeout: the default grace lets it finish when its pod is deleted.
  const grace = integer(raw.terminationGracePeriodSeconds, timeouts.maxTimeoutSeconds + TERMINATION_GRACE_MARGIN_SECONDS, 0, 2_147_483_647);
  if (grace === undefined) {
    errors.push(`${flags.terminationGracePeriodSeconds} must be a non-negative integer number of seconds (got ${show(raw.terminationGracePeriodSeconds)})`);
  }
  const agentPort = integer(raw.agentPort, DEFAULT_AGENT_PORT, 1, 65_535);
  if (agentPort === undefined) errors.push(`${flags.agentPort} must be an integer between 1 and 65535 (got ${show(raw.agentPort)})`);
  const runtimeClassName = blankToUndefined(raw.runtimeClassName);
  if (runtimeClassName !== undefined && !isDnsSubdomain(runtimeClassName)) {
    errors.push(`${flags.runtimeClassName} ${JSON.stringify(runtimeClassName)} ${subdomainProblem(runtimeClassName)}`);
  }

  const sandboxDns = dnsMode(raw, flags, errors);

  if (errors.length > 0) return { ok: false, errors, warnings };
  const config: SandboxPodConfig = {
    namespace: namespace!,
    instanceName: instanceName!,
    image: image!,
    imagePullPolicy,
    serviceAccountName: serviceAccountName!,
    kubeconfigSecret: kubeconfigSecret!,
    resources: {
      cpuRequest: resources.cpuRequest.text,
      cpuLimit: resources.cpuLimit.text,
      memoryRequest: resources.memoryRequest.text,
      memoryLimit: resources.memoryLimit.text,
    },
    env,
    workspaceSizeLimit: workspace.text,
    tmpSizeLimit: tmp.text,
    terminationGracePeriodSeconds: grace!,
    agentPort: agentPort!,
    runtimeClassName,
    ...timeouts,
    // Only when on: an absent field keeps the spec (and its hash) of a configuration without the gateway.
    ...(raw.egressGateway === true ? { egressGateway: true, sandboxDns } : {}),
  };
  return { ok: true, config, warnings };
}

/**
 * `--sandbox-dns`: `none` unless `cluster` is asked for. `none` needs the gateway — without it the sandbox itself
 * resolves the API server's name — so asking for it without the gateway is an error rather than a silent no-op.
 */
function dnsMode(raw: RawSandboxPodConfig, flags: SandboxFlagNames, errors: string[]): SandboxDns {
  const text = blankToUndefined(raw.sandboxDns);
  if (text === undefined) return 'none';
  if (!(SANDBOX_DNS_MODES as readonly string[]).includes(text)) {
    errors.push(`${flags.sandboxDns} must be none or cluster (got ${show(text)})`);
    return 'none';
  }
  if (text === 'none' && raw.egressGateway !== true) errors.push(`${flags.sandboxDns} none needs ${flags.egressGateway}: without the gateway the sandbox resolves the API server itself`);
  return text as SandboxDns;
}

/** The agent's timeout bounds; whole seconds 1 s – 24 h like the server's flags, the default ≤ the max. */
function agentTimeouts(raw: RawSandboxPodConfig, flags: SandboxFlagNames, errors: string[]): { maxTimeoutSeconds: number; defaultTimeoutSeconds: number } {
  const max = integer(raw.maxTimeoutSeconds, DEFAULT_MAX_TIMEOUT_SECONDS, 1, MAX_AGENT_TIMEOUT_SECONDS);
  const fallback = integer(raw.defaultTimeoutSeconds, DEFAULT_TIMEOUT_SECONDS, 1, MAX_AGENT_TIMEOUT_SECONDS);
  const range = `an integer number of seconds between 1 and ${MAX_AGENT_TIMEOUT_SECONDS}`;
  if (max === undefined) errors.push(`${flags.maxTimeoutSeconds} must be ${range} (got ${show(raw.maxTimeoutSeconds)})`);
  if (fallback === undefined) errors.push(`${flags.defaultTimeoutSeconds} must be ${range} (got ${show(raw.defaultTimeoutSeconds)})`);
  // The same words as the server's own check, so the server can drop the duplicate.
  if (max !== undefined && fallback !== undefined && fallback > max) errors.push(`${flags.defaultTimeoutSeconds} must not exceed ${flags.maxTimeoutSeconds}`);
  return { maxTimeoutSeconds: max ?? DEFAULT_MAX_TIMEOUT_SECONDS, defaultTimeoutSeconds: fallback ?? DEFAULT_TIMEOUT_SECONDS };
}

/** A quantity field: its text (given or default), whether it was defaulted, and the parse outcome. */
interface QuantityField {
  readonly text: string;
  readonly defaulted: boolean;
  readonly parsed: QuantityResult;
}

function quantity(value: string | undefined, fallback: string, flag: string, rules: ResourceQuantityRules, errors: string[]): QuantityField {
  const given = blankToUndefined(value);
  const text = given ?? fallback;
  const parsed = parseResourceQuantity(text, flag, rules);
  if (!parsed.ok) errors.push(parsed.error);
  return { text, defaulted: given === undefined, parsed };
}

// C-K8S-3: the API server would reject every sandbox pod; say so once, at startup, naming both flags.
function requestWithinLimit(request: QuantityField, limit: QuantityField, requestFlag: string, limitFlag: string, errors: string[]): void {
  if (!request.parsed.ok || !limit.parsed.ok) return;
  if (compareQuantities(request.parsed.value, limit.parsed.value) <= 0) return;
  const describe = (flag: string, field: QuantityField): string =>
    `${flag} ${JSON.stringify(field.text)}${field.defaulted ? ' (default)' : ''}`;
  errors.push(`${describe(requestFlag, request)} must be less than or equal to ${describe(limitFlag, limit)}`);
}

function envOverlay(value: RawSandboxPodConfig['env'], flag: string, errors: string[], warnings: string[]): V1EnvVar[] {
  if (value === undefined) return [];
  const decoded = typeof value === 'string' ? parseSandboxEnv(value, flag) : decodeSandboxEnv(value, flag);
  if (!decoded.ok) {
    errors.push(decoded.error);
    return [];
  }
  const checked = checkSandboxEnv(decoded.value, flag);
  errors.push(...checked.errors);
  warnings.push(...checked.warnings);
  return checked.env;
}

function required(value: string | undefined, flag: string, errors: string[], problem: (v: string) => string | undefined): string | undefined {
  const given = blankToUndefined(value);
  if (given === undefined) {
    errors.push(`${flag} is required`);
    return undefined;
  }
  const reason = problem(given);
  if (reason !== undefined) errors.push(`${flag} ${JSON.stringify(given)} ${reason}`);
  return given;
}

function subdomainProblem(value: string): string | undefined {
  return isDnsSubdomain(value) ? undefined : 'must be a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", at most 253 characters)';
}

function integer(value: string | number | undefined, fallback: number, min: number, max: number): number | undefined {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return fallback;
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
