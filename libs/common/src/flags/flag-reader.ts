import { parseDuration } from '../duration.js';
import { envVarName, type FlagSpec, type RawFlags, type RawFlagValue } from './flag-spec.js';
import { describeFlag } from './read-raw-flags.js';

/**
 * Typed access to raw flags that never throws: a bad value records a problem that names the flag, its env var
 * and where the value came from, and the getter returns a fallback so validation can go on and report every
 * problem in one run (C-CFG-1).
 */
export class FlagReader {
  private readonly specs: ReadonlyMap<string, FlagSpec>;
  private readonly found: string[];

  constructor(
    specs: readonly FlagSpec[],
    private readonly raw: RawFlags,
    private readonly envPrefix: string,
  ) {
    this.specs = new Map(specs.map((spec) => [spec.name, spec]));
    this.found = [...raw.problems];
  }

  /** Every problem so far, in the order found. */
  get problems(): readonly string[] {
    return this.found;
  }

  /** `--name (env PREFIX_NAME)`. */
  label(name: string): string {
    return describeFlag(this.spec(name), this.envPrefix);
  }

  /** Records a problem that is not about one value (cross-flag rules); the message must name the flags. */
  fail(message: string): void {
    this.found.push(message);
  }

  /** True when the user set the flag (command line or env), not just the default. */
  isSet(name: string): boolean {
    this.spec(name);
    return this.raw.values.has(name);
  }

  /** Where the effective value comes from. */
  source(name: string): RawFlagValue['source'] {
    return this.raw.values.get(name)?.source ?? 'default';
  }

  string(name: string): string | undefined {
    const value = this.value(name);
    return typeof value === 'string' ? value : undefined;
  }

  boolean(name: string): boolean {
    const value = this.value(name);
    if (typeof value === 'boolean') return value;
    return value === 'true';
  }

  /** A whole number (syntax only: ranges are a settings class's rules); `undefined` when unset or malformed. */
  integer(name: string): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const value = /^[+-]?\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
    if (Number.isSafeInteger(value)) return value;
    this.invalid(name, `must be a whole number; got ${JSON.stringify(text)}`);
    return undefined;
  }

  /** Milliseconds (syntax only, Go durations); `undefined` when unset or malformed. */
  duration(name: string): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const parsed = parseDuration(text.trim());
    if (parsed.ok) return parsed.ms;
    this.invalid(name, `${parsed.error}; use Go syntax such as 90s, 5m or 1h30m`);
    return undefined;
  }

  /** Comma-separated list, entries trimmed, empty entries dropped. */
  list(name: string): string[] {
    const text = this.string(name);
    if (text === undefined) return [];
    return text
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
  }

  /**
   * The value as `kind` with the syntax checked only (ranges and cross-flag rules belong to a settings class,
   * `readSettings`); `undefined` when unset, and also when malformed — that problem is recorded.
   */
  parse(name: string, kind: FlagValueKind): string | boolean | number | string[] | undefined {
    switch (kind) {
      case 'boolean':
        return this.boolean(name);
      case 'list':
        return this.list(name);
      case 'string':
        return this.string(name);
      case 'integer':
        return this.integer(name);
      case 'duration':
        return this.duration(name);
    }
  }

  /** Records `problem` against flag `name`, saying where a non-default value came from. */
  invalid(name: string, problem: string): void {
    const raw = this.raw.values.get(name);
    const origin = raw?.source === 'env' ? ` [from ${raw.envName ?? envVarName(this.envPrefix, name)}]` : '';
    this.found.push(`${this.label(name)}: ${problem}${origin}`);
  }

  private value(name: string): string | boolean | undefined {
    const spec = this.spec(name);
    const raw = this.raw.values.get(name);
    if (raw) return raw.value;
    return spec.default;
  }

  private spec(name: string): FlagSpec {
    const spec = this.specs.get(name);
    if (!spec) throw new Error(`flag --${name} is not declared`); // programming error, not user input
    return spec;
  }
}

/** How a flag's text is read into a settings field. */
export type FlagValueKind = 'string' | 'boolean' | 'integer' | 'duration' | 'list';

/** `between 1 and 9`, `at least 1s`, `at most 5m` (bounds shown with `show`). */
export function rangeText<T>(min: T | undefined, max: T | undefined, show: (value: T) => string): string {
  if (min !== undefined && max !== undefined) return `between ${show(min)} and ${show(max)}`;
  if (min !== undefined) return `at least ${show(min)}`;
  if (max !== undefined) return `at most ${show(max)}`;
  return 'valid';
}
