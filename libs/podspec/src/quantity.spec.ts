import { describe, expect, it } from 'vitest';
import {
  QUANTITY_FORMAT_REASON,
  QUANTITY_SUFFIX_REASON,
  compareQuantities,
  parseQuantity,
  parseResourceQuantity,
  type Quantity,
} from './quantity.js';

const FLAG = '--sandbox-cpu-request';

function value(text: string): Quantity {
  const result = parseQuantity(text, FLAG);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

/** The exact value as a "numerator/denominator" string in lowest terms, for readable expectations. */
function exact(text: string): string {
  const { numerator, denominator } = value(text);
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
  const g = gcd(numerator, denominator) || 1n;
  const [n, d] = [numerator / g, denominator / g];
  return d === 1n ? `${n}` : `${n}/${d}`;
}

describe(parseQuantity.name, () => {
  it.each([
    ['0', '0'],
    ['1', '1'],
    ['+1', '1'],
    ['-1', '-1'],
    ['100m', '1/10'],
    ['1.5', '3/2'],
    ['1.', '1'],
    ['.5', '1/2'],
    ['007', '7'],
    ['1n', '1/1000000000'],
    ['1u', '1/1000000'],
    ['1k', '1000'],
    ['1M', '1000000'],
    ['1G', '1000000000'],
    ['1T', '1000000000000'],
    ['1P', '1000000000000000'],
    ['1E', '1000000000000000000'],
    ['1Ki', '1024'],
    ['1Mi', '1048576'],
    ['128Mi', '134217728'],
    ['1Gi', '1073741824'],
    ['1Ti', '1099511627776'],
    ['1Pi', '1125899906842624'],
    ['1Ei', '1152921504606846976'],
    ['1.5Gi', '1610612736'],
    ['1e3', '1000'],
    ['1E3', '1000'],
    ['1e+3', '1000'],
    ['5e-1', '1/2'],
    ['12E-3', '3/250'],
    ['0.1m', '1/10000'],
  ])('parses %j exactly as %s', (text, expected) => {
    expect(exact(text)).toBe(expected);
    expect(value(text).text).toBe(text);
  });

  it.each([
    ['not-a-quantity', QUANTITY_FORMAT_REASON],
    ['', QUANTITY_FORMAT_REASON],
    [' 1', QUANTITY_FORMAT_REASON],
    ['1 ', QUANTITY_FORMAT_REASON],
    ['1.2.3', QUANTITY_FORMAT_REASON],
    ['.', QUANTITY_FORMAT_REASON],
    ['+', QUANTITY_FORMAT_REASON],
    ['Mi', QUANTITY_FORMAT_REASON],
    ['1,5', QUANTITY_FORMAT_REASON],
    ['1mb', QUANTITY_FORMAT_REASON],
    ['1K', QUANTITY_SUFFIX_REASON],
    ['1KiB', QUANTITY_FORMAT_REASON],
    ['1mi', QUANTITY_SUFFIX_REASON],
    ['1Ki5', QUANTITY_SUFFIX_REASON],
    ['1e', QUANTITY_SUFFIX_REASON],
    ['1E+', QUANTITY_SUFFIX_REASON],
    ['1ee3', QUANTITY_SUFFIX_REASON],
    ['1e101', 'exponent out of range (|e| ≤ 100)'],
    ['1e99999999999999', 'exponent out of range (|e| ≤ 100)'],
    ['1'.repeat(65), 'longer than 64 characters'],
  ])('rejects %j naming the flag (Go §7.2 format)', (text, reason) => {
    expect(parseQuantity(text, FLAG)).toEqual({
      ok: false,
      error: `${FLAG}: invalid quantity ${JSON.stringify(text)}: ${reason}`,
    });
  });

  it('quotes the value as Go %q would, escapes included', () => {
    const result = parseQuantity('a"b', '--x');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toBe('--x: invalid quantity "a\\"b": ' + QUANTITY_FORMAT_REASON);
  });
});

describe(compareQuantities.name, () => {
  it.each([
    ['1', '1000m'],
    ['1Gi', '1024Mi'],
    ['1e3', '1k'],
    ['0.5', '500m'],
    ['1Ki', '1024'],
    ['1M', '1e6'],
    ['1500m', '1.5'],
    ['0', '-0'],
    ['1E', '1e18'],
  ])('%s equals %s', (a, b) => {
    expect(compareQuantities(value(a), value(b))).toBe(0);
    expect(compareQuantities(value(b), value(a))).toBe(0);
  });

  it.each([
    ['100m', '500m'],
    ['999m', '1'],
    ['1G', '1Gi'],
    ['128Mi', '512Mi'],
    ['1000000n', '1001u'],
    ['-1', '0'],
    ['1Ei', '2E'],
  ])('%s is less than %s', (a, b) => {
    expect(compareQuantities(value(a), value(b))).toBe(-1);
    expect(compareQuantities(value(b), value(a))).toBe(1);
  });
});

describe(parseResourceQuantity.name, () => {
  const cpu = { unit: 'cpu', positive: false } as const;
  const bytesLimit = { unit: 'bytes', positive: true } as const;

  it('accepts ordinary values', () => {
    expect(parseResourceQuantity('250m', FLAG, cpu).ok).toBe(true);
    expect(parseResourceQuantity('0', FLAG, cpu).ok).toBe(true);
    expect(parseResourceQuantity('1.5Gi', '--m', bytesLimit).ok).toBe(true);
  });

  it.each([
    ['-1', cpu, 'must not be negative'],
    ['-100m', cpu, 'must not be negative'],
    ['0', bytesLimit, 'must be greater than zero'],
    ['0.5m', cpu, 'CPU precision finer than 1m is not allowed'],
    ['1u', cpu, 'CPU precision finer than 1m is not allowed'],
    ['400m', bytesLimit, 'must be a whole number of bytes ("m" means milli; did you mean "400Mi"?)'],
    ['0.5', bytesLimit, 'must be a whole number of bytes'],
  ])('rejects %j with %j', (text, rules, reason) => {
    expect(parseResourceQuantity(text, FLAG, rules)).toEqual({
      ok: false,
      error: `${FLAG}: invalid quantity ${JSON.stringify(text)}: ${reason}`,
    });
  });

  it('passes grammar errors through unchanged', () => {
    expect(parseResourceQuantity('not-a-quantity', FLAG, cpu)).toEqual(parseQuantity('not-a-quantity', FLAG));
  });
});
