import { describe, expect, it } from 'vitest';
import { MarkerScanner } from './marker-scanner.js';

const MARKER = Buffer.from('\x1f__CLIMCP_abcS');

function feed(chunks: Buffer[]): { before: Buffer; found: boolean; after: Buffer } {
  const scanner = new MarkerScanner(MARKER);
  const before: Buffer[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const r = scanner.push(chunk);
    before.push(r.before);
    if (r.found) return { before: Buffer.concat(before), found: true, after: Buffer.concat([r.after, ...chunks.slice(i + 1)]) };
  }
  return { before: Buffer.concat([...before, scanner.flush()]), found: false, after: Buffer.alloc(0) };
}

describe(MarkerScanner.name, () => {
  const stream = Buffer.concat([Buffer.from('hello\x00\xff'), MARKER, Buffer.from('rest')]);

  it('finds the marker in one chunk and splits before/after exactly', () => {
    const r = feed([stream]);
    expect(r.found).toBe(true);
    expect(r.before).toEqual(Buffer.from('hello\x00\xff'));
    expect(r.after.toString()).toBe('rest');
  });

  it('finds a marker cut at every possible position across two chunks', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const r = feed([stream.subarray(0, cut), stream.subarray(cut)]);
      expect(r.found, `cut at ${cut}`).toBe(true);
      expect(r.before).toEqual(Buffer.from('hello\x00\xff'));
      expect(r.after.toString()).toBe('rest');
    }
  });

  it('finds the marker fed one byte at a time', () => {
    const r = feed([...stream].map((b) => Buffer.from([b])));
    expect(r.found).toBe(true);
    expect(r.before).toEqual(Buffer.from('hello\x00\xff'));
  });

  it('releases bytes that only look like the start of the marker', () => {
    const scanner = new MarkerScanner(MARKER);
    const first = scanner.push(Buffer.from('abc\x1f__CLI'));
    expect(first.before.toString()).toBe('abc');
    const second = scanner.push(Buffer.from('XYZ'));
    expect(second.found).toBe(false);
    expect(second.before.toString()).toBe('\x1f__CLIXYZ');
  });

  it('does not match marker-like text with another nonce', () => {
    const r = feed([Buffer.from('\x1f__CLIMCP_abdS and __CLIMCP_abcS')]);
    expect(r.found).toBe(false);
    expect(r.before.toString()).toBe('\x1f__CLIMCP_abdS and __CLIMCP_abcS');
  });

  it('flush returns held-back bytes once', () => {
    const scanner = new MarkerScanner(MARKER);
    expect(scanner.push(Buffer.from('x\x1f__')).before.toString()).toBe('x');
    expect(scanner.flush().toString()).toBe('\x1f__');
    expect(scanner.flush().length).toBe(0);
  });
});
