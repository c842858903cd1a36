import type { V1EnvVar } from '@kubernetes/client-node';

/**
 * The `--sandbox-env` overlay (C-K8S-3, Go §6.3): decoding the JSON flag, checking entries, and the rule that
 * names the sandbox itself sets are skipped ("operator wins") rather than overriding the agent's wiring.
 */

/** Names the sandbox sets itself; `SANDBOX_*` as a whole is reserved for the agent (C-AG-10). */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['KUBECONFIG', 'HOME', 'SANDBOX_AUTH_TOKEN']);
const RESERVED_PREFIX = 'SANDBOX_';

// Kubernetes' classic C_IDENTIFIER-ish env name rule; newer clusters accept more, every cluster accepts this.
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_KEYS: ReadonlySet<string> = new Set(['name', 'value', 'valueFrom']);
/** The sources of `valueFrom` and the string field each requires. */
const VALUE_FROM_SOURCES: Readonly<Record<string, string | undefined>> = {
  secretKeyRef: 'key',
  configMapKeyRef: 'key',
  fieldRef: 'fieldPath',
  resourceFieldRef: 'resource',
  fileKeyRef: undefined,
};

/** Decoded `--sandbox-env`, or why it could not be decoded. */
export type SandboxEnvResult = { readonly ok: true; readonly value: V1EnvVar[] } | { readonly ok: false; readonly error: string };

/** Outcome of checking an overlay: the entries to use, errors, and warnings for ignored reserved names. */
export interface SandboxEnvCheck {
  readonly env: V1EnvVar[];
  readonly errors: string[];
  readonly warnings: string[];
}

/** True for env names the overlay may not set: `KUBECONFIG`, `HOME`, `SANDBOX_AUTH_TOKEN`, any `SANDBOX_*`. */
export function isReservedEnvName(name: string): boolean {
  return RESERVED_NAMES.has(name) || name.startsWith(RESERVED_PREFIX);
}

/**
 * Decodes the `--sandbox-env` JSON: an array of Kubernetes `EnvVar` (`name`, `value`, `valueFrom`). Blank text
 * means no overlay (Go §7.2). Errors read `<flag> must be a JSON array of Kubernetes EnvVar: <reason>`, with
 * every malformed entry listed. Unknown fields are rejected: they are typos the API server would drop.
 */
export function parseSandboxEnv(json: string, flag: string): SandboxEnvResult {
  if (json.trim() === '') return { ok: true, value: [] };
  const fail = (reason: string): SandboxEnvResult => ({
    ok: false,
    error: `${flag} must be a JSON array of Kubernetes EnvVar: ${reason}`,
  });
  let decoded: unknown;
  try {
    decoded = JSON.parse(json);
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  return decodeSandboxEnv(decoded, flag);
}

/**
 * Checks that an already-decoded value (e.g. from a CR or the JSON above) has the `EnvVar[]` shape and returns
 * clean copies; same error format as {@link parseSandboxEnv}.
 */
export function decodeSandboxEnv(decoded: unknown, flag: string): SandboxEnvResult {
  const fail = (reason: string): SandboxEnvResult => ({
    ok: false,
    error: `${flag} must be a JSON array of Kubernetes EnvVar: ${reason}`,
  });
  if (!Array.isArray(decoded)) return fail(`expected an array, got ${describe(decoded)}`);
  const entries: unknown[] = decoded;
  const problems = entries.flatMap((entry, index) => entryShapeProblems(entry).map((p) => `entry ${index}: ${p}`));
  if (problems.length > 0) return fail(problems.join('; '));
  return { ok: true, value: entries.map((entry) => toEnvVar(entry as Record<string, unknown>)) };
}

/**
 * Checks decoded entries: valid and unique names (Go §18.18 — Go let the API server reject them per pod);
 * reserved names are dropped with a warning instead of failing startup, matching Go's silent skip (§6.3).
 */
export function checkSandboxEnv(entries: readonly V1EnvVar[], flag: string): SandboxEnvCheck {
  const env: V1EnvVar[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  const firstIndex = new Map<string, number>();
  entries.forEach((entry, index) => {
    const name = entry.name;
    if (typeof name !== 'string' || !ENV_NAME.test(name)) {
      errors.push(`${flag}: entry ${index}: invalid name ${JSON.stringify(name)} (must match ${ENV_NAME.source})`);
      return;
    }
    if (isReservedEnvName(name)) {
      warnings.push(`${flag}: entry ${index}: ${name} is set by the sandbox; the overlay value is ignored`);
      return;
    }
    const first = firstIndex.get(name);
    if (first !== undefined) {
      errors.push(`${flag}: entry ${index}: duplicate name ${name} (first set by entry ${first})`);
      return;
    }
    firstIndex.set(name, index);
    env.push(structuredClone(entry));
  });
  return { env, errors, warnings };
}

/** The overlay as it goes into a pod: reserved names skipped, order kept, entries copied (Go §6.3). */
export function overlayEnv(entries: readonly V1EnvVar[]): V1EnvVar[] {
  return entries.filter((e) => !isReservedEnvName(e.name)).map((e) => structuredClone(e));
}

function entryShapeProblems(entry: unknown): string[] {
  if (!isObject(entry)) return [`expected an object, got ${describe(entry)}`];
  const problems = Object.keys(entry)
    .filter((key) => !ENV_KEYS.has(key))
    .map((key) => `unknown field ${JSON.stringify(key)}`);
  if (typeof entry.name !== 'string') problems.push('"name" must be a string');
  if (entry.value !== undefined && entry.value !== null && typeof entry.value !== 'string') {
    problems.push('"value" must be a string');
  }
  if (entry.valueFrom !== undefined && entry.valueFrom !== null) {
    problems.push(...valueFromProblems(entry.valueFrom));
    if (typeof entry.value === 'string' && entry.value !== '') problems.push('"value" and "valueFrom" are mutually exclusive');
  }
  return problems;
}

function valueFromProblems(valueFrom: unknown): string[] {
  if (!isObject(valueFrom)) return [`"valueFrom" must be an object, got ${describe(valueFrom)}`];
  const keys = Object.keys(valueFrom);
  const known = Object.keys(VALUE_FROM_SOURCES);
  if (keys.length !== 1 || !known.includes(keys[0]!)) {
    return [`"valueFrom" must have exactly one of ${known.join(', ')}`];
  }
  const source = keys[0]!;
  const ref = valueFrom[source];
  if (!isObject(ref)) return [`"valueFrom.${source}" must be an object`];
  const required = VALUE_FROM_SOURCES[source];
  if (required !== undefined && (typeof ref[required] !== 'string' || ref[required] === '')) {
    return [`"valueFrom.${source}.${required}" is required`];
  }
  return [];
}

function toEnvVar(entry: Record<string, unknown>): V1EnvVar {
  const env: V1EnvVar = { name: entry.name as string };
  if (typeof entry.value === 'string') env.value = entry.value;
  if (isObject(entry.valueFrom)) env.valueFrom = structuredClone(entry.valueFrom) as V1EnvVar['valueFrom'];
  return env;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}
