import { formatDuration, parseDuration } from '../duration.js';
import { envVarName, type FlagSpec, type RawFlags, type RawFlagValue } from './flag-spec.js';
import { describeFlag } from './read-raw-flags.js';

export interface IntegerRule {
  readonly min?: number;
  readonly max?: number;
}

export interface DurationRule {
  /** Inclusive bounds in milliseconds. */
  readonly minMs?: number;
  readonly maxMs?: number;
  /** Reject fractions of a second (values sent to the agent in whole seconds). */
  readonly wholeSeconds?: boolean;
}

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

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const text = this.string(name);
    if (text === undefined) return fallback;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    this.invalid(name, `must be one of ${allowed.join(', ')}; got ${JSON.stringify(text)}`);
    return fallback;
  }

  integer(name: string, rule: IntegerRule, fallback: number): number {
    const text = this.string(name);
    if (text === undefined) return fallback;
    const value = /^[+-]?\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
    if (!Number.isSafeInteger(value)) {
      this.invalid(name, `must be a whole number; got ${JSON.stringify(text)}`);
      return fallback;
    }
    if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) {
      this.invalid(name, `must be ${rangeText(rule.min, rule.max, String)}; got ${value}`);
      return fallback;
    }
    return value;
  }

  /** Milliseconds. */
  duration(name: string, rule: DurationRule, fallbackMs: number): number {
    const text = this.string(name);
    if (text === undefined) return fallbackMs;
    const parsed = parseDuration(text.trim());
    if (!parsed.ok) {
      this.invalid(name, `${parsed.error}; use Go syntax such as 90s, 5m or 1h30m`);
      return fallbackMs;
    }
    const { minMs, maxMs } = rule;
    if ((minMs !== undefined && parsed.ms < minMs) || (maxMs !== undefined && parsed.ms > maxMs)) {
      this.invalid(name, `must be ${rangeText(minMs, maxMs, formatDuration)}; got ${JSON.stringify(text)}`);
      return fallbackMs;
    }
    if (rule.wholeSeconds && parsed.ms % 1000 !== 0) {
      this.invalid(name, `must be a whole number of seconds; got ${JSON.stringify(text)}`);
      return fallbackMs;
    }
    return parsed.ms;
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
      case 'duration': {
        if (this.string(name) === undefined) return undefined;
        const before = this.found.length;
        const value = kind === 'integer' ? this.integer(name, {}, Number.NaN) : this.duration(name, {}, Number.NaN);
        return this.found.length === before ? value : undefined;
      }
    }
  }

  /** Records `problem` against flag `name`, saying where a non-default value came from. */
  invalid(name: string, problem: string): void {
    const source = this.source(name);
    const origin = source === 'env' ? ` [from ${envVarName(this.envPrefix, name)}]` : '';
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
