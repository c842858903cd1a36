import { describe, expect, it } from 'vitest';
import { endMarker, startMarker } from '../script/command-script.js';
import { StreamFramer } from './stream-framer.js';

const NONCE = '0123456789abcdef01234567';

function framer(withExitCode: boolean) {
  const background: Buffer[] = [];
  const body: Buffer[] = [];
  const f = new StreamFramer(startMarker(NONCE), endMarker(NONCE), withExitCode, {
    background: (b) => background.push(Buffer.from(b)),
    body: (b) => body.push(Buffer.from(b)),
  });
  return { f, text: () => ({ background: Buffer.concat(background).toString(), body: Buffer.concat(body).toString() }) };
}

// Every start marker is followed by the run-mode byte (C-MCP-11).
const S = `${startMarker(NONCE).toString('latin1')}S`;
const E = endMarker(NONCE).toString('latin1');

describe(StreamFramer.name, () => {
  it('routes earlier output to background, the window to the command and parses the exit code', () => {
    const { f, text } = framer(true);
    f.push(Buffer.from(`late job\n${S}out put${E}42\nafter`));
    expect(f.done).toBe(true);
    expect(f.exitCode).toBe(42);
    expect(text()).toEqual({ background: 'late job\nafter', body: 'out put' });
  });

  it('reads the run-mode byte after the start marker, also when it arrives in a chunk of its own', () => {
    const { f, text } = framer(false);
    f.push(Buffer.from(startMarker(NONCE)));
    expect(f.mode).toBeUndefined();
    f.push(Buffer.from(`Jbody${E}`));
    expect(f.mode).toBe('J');
    expect(text().body).toBe('body');
  });

  it('keeps output without a trailing newline and handles every chunk boundary', () => {
    const whole = Buffer.from(`${S}abc${E}7\n`, 'latin1');
    for (let cut = 1; cut < whole.length; cut++) {
      const { f, text } = framer(true);
      f.push(whole.subarray(0, cut));
      f.push(whole.subarray(cut));
      expect(f.exitCode, `cut ${cut}`).toBe(7);
      expect(text().body).toBe('abc');
    }
  });

  it('waits for the newline after the exit code', () => {
    const { f } = framer(true);
    f.push(Buffer.from(`${S}${E}12`, 'latin1'));
    expect(f.done).toBe(false);
    f.push(Buffer.from('7\n'));
    expect(f.exitCode).toBe(127);
  });

  it('stderr framing ends at the bare end marker', () => {
    const { f, text } = framer(false);
    f.push(Buffer.from(`${S}err${E}`, 'latin1'));
    expect(f.done).toBe(true);
    expect(text().body).toBe('err');
  });

  it('flush after a shell death releases held bytes to the command', () => {
    const { f, text } = framer(true);
    f.push(Buffer.from(`${S}partial\x1f__CL`, 'latin1'));
    f.flush();
    expect(f.started).toBe(true);
    expect(f.done).toBe(false);
    expect(text().body).toBe('partial\x1f__CL');
  });
});
