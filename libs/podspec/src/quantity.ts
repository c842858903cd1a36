/**
 * Kubernetes resource quantities, parsed without throwing (C-K8S-3; the Go builder used the panicking
 * `MustParse`, Go §6.4/§18.18). Values are exact rationals of BigInts so `1` = `1000m`, `1Gi` = `1024Mi`,
 * `1e3` = `1k` and `0.5` = `500m` compare equal with no floating-point error.
 *
 * Grammar (apimachinery `resource.Quantity`):
 *   quantity ::= [+-] number suffix
 *   number   ::= digits | digits "." [digits] | "." digits
 *   suffix   ::= "" | Ki Mi Gi Ti Pi Ei | n u m k M G T P E | (e|E) [+-] digits
 * Deliberately stricter than Go in three corner cases Go accepts by accident: a bare sign or "." (Go reads 0),
 * more than 64 characters, and exponents beyond ±100 (bounds the BigInt work for hostile input).
 */

/** An exactly-represented quantity: `numerator / denominator` base units (cores, bytes); denominator > 0. */
export interface Quantity {
  /** The text as given (what goes into the pod spec). */
  readonly text: string;
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** Result of parsing user input: never an exception. `error` names the flag (Go §7.2 format). */
export type QuantityResult = { readonly ok: true; readonly value: Quantity } | { readonly ok: false; readonly error: string };

/** Go's `resource.ErrFormatWrong` text, so operators see the familiar message. */
export const QUANTITY_FORMAT_REASON =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** Go's `resource.ErrSuffix` text. */
export const QUANTITY_SUFFIX_REASON = "unable to parse quantity's suffix";

const MAX_LENGTH = 64;
const MAX_EXPONENT = 100;
const LOOSE_SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const NUMBER = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))$/;
const EXPONENT = /^[eE]([+-]?\d+)$/;
const BINARY_SI: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SI: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/**
 * Parses a Kubernetes quantity. On failure the error reads `<flag>: invalid quantity "<value>": <reason>`.
 * Negative values are valid quantities; {@link parseResourceQuantity} applies the resource rules.
 */
export function parseQuantity(text: string, flag: string): QuantityResult {
  const fail = (reason: string): QuantityResult => ({ ok: false, error: invalidQuantity(flag, text, reason) });
  if (text.length > MAX_LENGTH) return fail(`longer than ${MAX_LENGTH} characters`);
  const shape = LOOSE_SHAPE.exec(text);
  if (!shape) return fail(QUANTITY_FORMAT_REASON);
  const [, numberText = '', suffix = ''] = shape;
  const number = NUMBER.exec(numberText);
  if (!number) return fail(QUANTITY_FORMAT_REASON);
  const [, sign, whole = '', fractionA, fractionB] = number;
  const fraction = fractionA ?? fractionB ?? '';

  let numerator = BigInt(`${whole}${fraction}` || '0');
  let denominator = 10n ** BigInt(fraction.length);
  const binary = BINARY_SI[suffix];
  const decimal = DECIMAL_SI[suffix];
  const exponentMatch = EXPONENT.exec(suffix);
  let exponent: number;
  if (binary !== undefined) {
    numerator *= 2n ** BigInt(binary);
    exponent = 0;
  } else if (decimal !== undefined) {
    exponent = decimal;
  } else if (exponentMatch) {
    exponent = Number(exponentMatch[1]);
    if (Math.abs(exponent) > MAX_EXPONENT) return fail(`exponent out of range (|e| ≤ ${MAX_EXPONENT})`);
  } else {
    return fail(QUANTITY_SUFFIX_REASON);
  }
  if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else denominator *= 10n ** BigInt(-exponent);
  if (sign === '-') numerator = -numerator;
  return { ok: true, value: { text, numerator, denominator } };
}

/** Orders two quantities exactly: negative when `a < b`, 0 when equal, positive when `a > b`. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** What a resource field accepts beyond the quantity grammar. */
export interface ResourceQuantityRules {
  /** `cpu`: whole millicores; `bytes`: whole bytes (memory, emptyDir size limits). */
  readonly unit: 'cpu' | 'bytes';
  /** Zero is rejected (limits and size limits: a zero limit is a sandbox that cannot run or write). */
  readonly positive: boolean;
}

/**
 * Parses a resource quantity: the grammar of {@link parseQuantity}, never negative (C-K8S-3), whole
 * millicores for CPU (Kubernetes rejects finer precision) and whole bytes for memory and storage — so the
 * classic `400m` memory typo (0.4 bytes) is an error that suggests `Mi`.
 */
export function parseResourceQuantity(text: string, flag: string, rules: ResourceQuantityRules): QuantityResult {
  const parsed = parseQuantity(text, flag);
  if (!parsed.ok) return parsed;
  const { numerator, denominator } = parsed.value;
  const fail = (reason: string): QuantityResult => ({ ok: false, error: invalidQuantity(flag, text, reason) });
  if (numerator < 0n) return fail('must not be negative');
  if (rules.positive && numerator === 0n) return fail('must be greater than zero');
  if (rules.unit === 'cpu' && (numerator * 1000n) % denominator !== 0n) {
    return fail('CPU precision finer than 1m is not allowed');
  }
  if (rules.unit === 'bytes' && numerator % denominator !== 0n) {
    const hint = text.endsWith('m') ? ` ("m" means milli; did you mean "${text.slice(0, -1)}Mi"?)` : '';
    return fail(`must be a whole number of bytes${hint}`);
  }
  return parsed;
}

function invalidQuantity(flag: string, text: string, reason: string): string {
  return `${flag}: invalid quantity ${JSON.stringify(text)}: ${reason}`;
}
