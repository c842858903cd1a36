import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildCommandChunk, endMarker, singleQuote, startMarker, SHELL_SETUP } from './command-script.js';

describe('command-script', () => {
  it.each([
    ["it's"],
    ["'"],
    ["''\\'"],
    ['$HOME `id` $(id) "x" \\n'],
    ['multi\nline\n'],
    ['\u00e9\u2014\ud83d\ude00'],
    [''],
  ])('singleQuote(%j) reads back verbatim in bash', (text) => {
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `printf '%s' ${singleQuote(text)}`]);
    expect(out.toString()).toBe(text);
  });

  it('never writes a marker literally (nothing echoed by set -v/-x can match)', () => {
    const nonce = 'aaaabbbbccccddddeeeeffff';
    const script = SHELL_SETUP + buildCommandChunk("echo 'hi'", nonce);
    expect(script.includes(startMarker(nonce).toString('latin1'))).toBe(false);
    expect(script.includes(endMarker(nonce).toString('latin1'))).toBe(false);
  });

  it('frames a command in real bash: markers, exit code, no trailing newline', () => {
    const nonce = '00112233445566778899aabb';
    const input = SHELL_SETUP + buildCommandChunk("printf abc; printf err >&2; (exit 3)", nonce);
    const out = execFileSync('bash', ['--norc', '--noprofile'], { input, stdio: ['pipe', 'pipe', 'pipe'] });
    expect(out.toString('latin1')).toBe(`${startMarker(nonce).toString('latin1')}Sabc${endMarker(nonce).toString('latin1')}3\n`);
  });
});
