import { parseArgs } from 'node:util';
import { envVarName, type FlagSpec, type RawFlags, type RawFlagValue } from './flag-spec.js';

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/** `true`/`false` (also 1/0, yes/no, on/off, any case) → boolean; anything else → undefined. */
export function parseBooleanWord(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/**
 * Reads `argv` (without node and script) and `env` against `specs`. Unlike `parseArgs` in strict mode it does
 * not stop at the first problem: every unknown flag, missing value and stray argument is collected, so one run
 * reports everything (C-CFG-1). Empty values (`--x=` or `X=""`) count as unset.
 */
export function readRawFlags(
  specs: readonly FlagSpec[],
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  envPrefix: string,
): RawFlags {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const options = Object.fromEntries(
    specs.map((spec) => [spec.name, { type: spec.kind ?? 'string', ...(spec.short ? { short: spec.short } : {}) }]),
  ) as Record<string, { type: 'string' | 'boolean'; short?: string }>;
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const problems: string[] = [];
  const values = new Map<string, RawFlagValue>();

  for (const spec of specs) {
    if (spec.noEnv) continue;
    const prefixed = envVarName(envPrefix, spec.name);
    const name = [prefixed, spec.envAlias].find((n) => n !== undefined && env[n] !== undefined && env[n] !== '');
    if (name === undefined) continue;
    const text = env[name]!;
    if ((spec.kind ?? 'string') === 'boolean') {
      const value = parseBooleanWord(text);
      if (value === undefined) problems.push(`${describeFlag(spec, envPrefix)}: expected true or false, got ${JSON.stringify(text)} [from ${name}]`);
      else values.set(spec.name, { value, source: 'env', envName: name });
    } else {
      values.set(spec.name, { value: text, source: 'env', envName: name });
    }
  }

  for (const token of tokens) {
    if (token.kind === 'positional') {
      problems.push(`unexpected argument ${JSON.stringify(token.value)} (flags start with --)`);
      continue;
    }
    if (token.kind !== 'option') continue;
    const spec = byName.get(token.name);
    if (!spec) {
      problems.push(`unknown flag ${token.rawName} (see --help)`);
      continue;
    }
    const label = describeFlag(spec, envPrefix);
    if ((spec.kind ?? 'string') === 'boolean') {
      if (token.value === undefined) {
        values.set(spec.name, { value: true, source: 'flag' });
        continue;
      }
      const value = parseBooleanWord(token.value);
      if (value === undefined) problems.push(`${label}: expected true or false, got ${JSON.stringify(token.value)}`);
      else values.set(spec.name, { value, source: 'flag' });
      continue;
    }
    // `--address --stateless` must not swallow the next flag as the address.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      problems.push(`${label}: ${token.rawName} needs a value`);
      continue;
    }
    if (token.value === '') values.delete(spec.name);
    else if (spec.repeatable && values.get(spec.name)?.source === 'flag') {
      values.set(spec.name, { value: `${String(values.get(spec.name)!.value)},${token.value}`, source: 'flag' });
    } else values.set(spec.name, { value: token.value, source: 'flag' });
  }
  return { values, problems };
}

/** `--name (env PREFIX_NAME)`: how every message names a flag, so users find both spellings. */
export function describeFlag(spec: FlagSpec, envPrefix: string): string {
  return spec.noEnv ? `--${spec.name}` : `--${spec.name} (env ${envNames(spec, envPrefix)})`;
}

/** `CLI_MCP_NAME`, or `CLI_MCP_NAME or ALIAS` for a flag with an {@link FlagSpec.envAlias}. */
export function envNames(spec: FlagSpec, envPrefix: string): string {
  const prefixed = envVarName(envPrefix, spec.name);
  return spec.envAlias ? `${prefixed} or ${spec.envAlias}` : prefixed;
}
