import { describe, expect, it } from 'vitest';
import { TerminalNormalizer } from './terminal-normalizer.js';

function normalize(...chunks: string[]): string {
  const n = new TerminalNormalizer();
  const out = chunks.map((c) => n.push(Buffer.from(c, 'latin1')).toString('latin1'));
  return out.join('') + n.flush().toString('latin1');
}

describe(TerminalNormalizer.name, () => {
  it('turns CR LF and lone CR into LF', () => {
    expect(normalize('a\r\nb\rc\n')).toBe('a\nb\nc\n');
    expect(normalize('a\r', '\nb')).toBe('a\nb');
    expect(normalize('progress\r\r\n')).toBe('progress\n');
    expect(normalize('a\r\rb')).toBe('a\nb');
  });

  it('strips CSI, OSC and short escape sequences and BEL', () => {
    expect(normalize('\x1b[31mred\x1b[0m \x1b[?2004hx\x1b]0;title\x07y\x1b]8;;http://x\x1b\\z\x1b(B\x1b=w\x07')).toBe('red xyzw');
  });

  it('strips sequences cut across chunks', () => {
    expect(normalize('a\x1b', '[3', '1mb\x1b]0;t', 'itle\x1b', '\\c')).toBe('abc');
  });

  it('passes plain text through untouched', () => {
    expect(normalize('plain text\n')).toBe('plain text\n');
  });
});
