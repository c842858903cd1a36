import { describe, expect, it } from 'vitest';
import { OutputCapture } from './output-capture.js';
import { completeUtf8Length, leadingContinuationBytes, trimTrailingNewlines } from './utf8-bytes.js';

function capture(budget: number, chunks: Array<string | Buffer>) {
  const c = new OutputCapture(budget);
  for (const chunk of chunks) c.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return c.finish();
}

describe(OutputCapture.name, () => {
  it('returns small output whole, with trailing newlines trimmed and exact counts', () => {
    const r = capture(64, ['hello\n', 'world\n\n']);
    expect(r).toEqual({ text: 'hello\nworld', truncated: false, bytes: 13, binary: false });
  });

  it('peeks at the latest bytes so far: across head and tail while contiguous, from a character boundary', () => {
    const c = new OutputCapture(16);
    c.push(Buffer.from('abcdef'));
    expect(c.latest(4)).toBe('cdef');
    c.push(Buffer.from('ghijkl'));
    expect(c.latest(8)).toBe('efghijkl');
    c.push(Buffer.from('mnopqrstuvwxyz'));
    // 26 bytes seen, head 'abcdefgh' kept, the ring holds the last 8: the gap in between is never bridged.
    expect(c.latest(12)).toBe('stuvwxyz');
    const utf8 = new OutputCapture(64);
    utf8.push(Buffer.from('xé'));
    expect(utf8.latest(1)).toBe('');
    expect(utf8.latest(2)).toBe('é');
  });

  it('keeps leading newlines and carriage returns (Go §9.4)', () => {
    expect(capture(64, ['\n\nx\r\n']).text).toBe('\n\nx\r');
  });

  it('keeps output that exactly fills the budget whole', () => {
    const r = capture(10, ['0123456789']);
    expect(r.truncated).toBe(false);
    expect(r.text).toBe('0123456789');
  });

  it('keeps head and tail of large output with exact omitted bytes and lines', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`);
    const whole = lines.join('');
    // Feed in odd-sized chunks so the ring buffer wraps many times.
    const chunks: string[] = [];
    for (let at = 0; at < whole.length; at += 37) chunks.push(whole.slice(at, at + 37));
    const r = capture(200, chunks);
    expect(r.truncated).toBe(true);
    expect(r.bytes).toBe(whole.length);
    expect(r.text).toBe(whole.slice(0, 100));
    expect(r.tail).toBe(whole.slice(whole.length - 100).replace(/\n+$/, ''));
    expect(r.omittedBytes).toBe(whole.length - 200);
    const omitted = whole.slice(100, whole.length - 100);
    expect(r.omittedLines).toBe(omitted.split('\n').length - 1);
  });

  it('cuts head and tail on UTF-8 character boundaries and counts the cut bytes as omitted', () => {
    // 'é' is 2 bytes (c3 a9): the 9-byte head ends inside one, the 9-byte tail starts inside one.
    const text = 'aaaaaaaa' + 'é'.repeat(20) + 'bbbbbb';
    const r = capture(18, [text]);
    expect(r.text).toBe('aaaaaaaa');
    expect(r.tail).toBe('ébbbbbb');
    expect(r.omittedBytes).toBe(Buffer.byteLength(text) - 8 - 8);
    expect(r.omittedLines).toBe(0);
  });

  it('flags NUL bytes as binary and decodes invalid UTF-8 lossily', () => {
    const r = capture(64, [Buffer.from([0x61, 0x00, 0xff, 0x62])]);
    expect(r.binary).toBe(true);
    expect(r.bytes).toBe(4);
    expect(r.text).toBe('a\u0000\ufffdb');
  });

  it('handles one chunk far larger than the budget', () => {
    const r = capture(8, [Buffer.alloc(10_000, 'x'), Buffer.from('END')]);
    expect(r.text).toBe('xxxx');
    expect(r.tail).toBe('xEND');
    expect(r.omittedBytes).toBe(10_003 - 8);
  });
});

describe('utf8-bytes', () => {
  it('completeUtf8Length drops only an incomplete final character', () => {
    const euro = Buffer.from('€'); // e2 82 ac
    expect(completeUtf8Length(Buffer.concat([Buffer.from('a'), euro]))).toBe(4);
    expect(completeUtf8Length(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)]))).toBe(1);
    expect(completeUtf8Length(Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)]))).toBe(1);
    expect(completeUtf8Length(Buffer.from([0x61, 0xff]))).toBe(2);
  });

  it('leadingContinuationBytes skips at most three', () => {
    expect(leadingContinuationBytes(Buffer.from([0x82, 0xac, 0x61]))).toBe(2);
    expect(leadingContinuationBytes(Buffer.from([0x80, 0x80, 0x80, 0x80]))).toBe(3);
    expect(leadingContinuationBytes(Buffer.from('abc'))).toBe(0);
  });

  it('trimTrailingNewlines removes only \\n at the end', () => {
    expect(trimTrailingNewlines('a\n\n')).toBe('a');
    expect(trimTrailingNewlines('a\r\n')).toBe('a\r');
    expect(trimTrailingNewlines('\n')).toBe('');
  });
});
