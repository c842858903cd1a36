import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyFileLine, buildCommandChunk, endMarker, LOST_BODY_NOTICE, newNonce, startMarker, SHELL_SETUP } from './command-script.js';
import { singleQuote } from './single-quote.js';
import { CLEARED } from '../jobs/job-ledger.js';

const dir = mkdtempSync(join(tmpdir(), 'command-script-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs SHELL_SETUP and the chunks in one real bash, the body file written up front (one chunk at a time here). */
function runInBash(line: string, body: string): { stdout: string; stderr: string } {
  const path = join(dir, 'body');
  writeFileSync(path, body);
  const run = spawnSync('bash', ['--norc', '--noprofile'], { input: SHELL_SETUP + bodyFileLine(path, join(dir, 'jobs')) + line });
  return { stdout: run.stdout.toString('latin1'), stderr: run.stderr.toString('latin1') };
}

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
    const nonce = 'aaaabbbbccccdddd';
    const chunk = buildCommandChunk("echo 'hi'", nonce);
    for (const text of [SHELL_SETUP, chunk.body, chunk.line]) {
      expect(text.includes(startMarker(nonce).toString('latin1'))).toBe(false);
      expect(text.includes(endMarker(nonce).toString('latin1'))).toBe(false);
    }
  });

  it('frames a command in real bash: markers, exit code, no trailing newline', () => {
    const nonce = '0011223344556677';
    const chunk = buildCommandChunk("printf abc; printf err >&2; (exit 3)", nonce);
    const { stdout, stderr } = runInBash(chunk.line, chunk.body);
    expect(stdout).toBe(`${startMarker(nonce).toString('latin1')}Sabc${endMarker(nonce).toString('latin1')}3\n`);
    expect(stderr).toBe(`${startMarker(nonce).toString('latin1')}Serr${endMarker(nonce).toString('latin1')}`);
  });

  // C-MCP-11: a lone `wait` interrupted at the yield point and one whose job ended just before the signal differ only
  // in whether the user's text returned; the tail says so by adding 256 to the status of a text the trap cut short.
  it('ends a text the stop trap cut short with 256 + its status, and one that returned with its own status', () => {
    const nonce = '8899aabbccddeeff';
    const end = endMarker(nonce).toString('latin1');
    const cut = runInBash(buildCommandChunk('kill -USR1 $$; echo after', nonce).line, buildCommandChunk('kill -USR1 $$; echo after', nonce).body);
    expect(cut.stdout).toBe(`${startMarker(nonce).toString('latin1')}S${end}256\n`);
    // The signal's flag set after the text returned (as a signal landing between the eval and the tail sets it).
    const late = buildCommandChunk('__climcp_s=1; (exit 4)', nonce);
    expect(runInBash(late.line, late.body).stdout).toBe(`${startMarker(nonce).toString('latin1')}S${end}4\n`);
    // A builtin `wait` the signal interrupted returns 128 + SIGUSR1 before bash runs the trap: still cut short.
    const interrupted = buildCommandChunk('__climcp_s=1; (exit 138)', nonce);
    expect(runInBash(interrupted.line, interrupted.body).stdout).toBe(`${startMarker(nonce).toString('latin1')}S${end}394\n`);
  });

  it('sets the kept statuses the body carries, and unsets one a new job of that number made stale (C-MCP-15)', () => {
    const nonce = '1122334455667788';
    const read = (keptJobs: Array<[string, number | typeof CLEARED]>) => {
      const chunk = buildCommandChunk('echo "${__climcp_K[%1]-none}"', nonce, { keptJobs });
      return runInBash(chunk.line, chunk.body).stdout.slice(startMarker(nonce).length + 1).split(endMarker(nonce).toString('latin1'))[0];
    };
    expect(read([['%1', 5]])).toBe('5\n');
    expect(read([['%1', 5], ['%1', CLEARED]])).toBe('none\n');
  });

  // Issue 11: bash reads a pipe one byte at a time, a sourced file in one read. What travels on the pipe is the same
  // short line for every command whatever its length; the command itself only in the body.
  it('sends bash a short line that does not grow with the command; the command travels in the body', () => {
    const long = `echo ${'x'.repeat(5000)}; for i in 1 2; do echo "$i"; done`;
    const lines = ['true', long, "it's \\\n odd"].map((command) => buildCommandChunk(command, '0123456789abcdef').line);
    expect(new Set(lines).size).toBe(1);
    expect(lines[0]!.length).toBeLessThanOrEqual(64);
    expect(lines[0]).not.toContain('echo');
    expect(buildCommandChunk(long, '0123456789abcdef').body).toContain(singleQuote(long));
  });

  it('runs nothing and says so when the body file holds another command than the line was sent for', () => {
    const nonce = '0011223344556677';
    const { stdout, stderr } = runInBash(buildCommandChunk('echo FRESH', nonce).line,
      buildCommandChunk('echo STALE', 'ffffffffffffffff').body);
    expect(stdout).toBe(`${startMarker(nonce).toString('latin1')}S${endMarker(nonce).toString('latin1')}1\n`);
    expect(stderr).toBe(`${startMarker(nonce).toString('latin1')}S${LOST_BODY_NOTICE}\n${endMarker(nonce).toString('latin1')}`);
  });
});

describe('newNonce', () => {
  it('gives 16 hex characters, never the same twice across many refills of its pool', () => {
    const nonces = Array.from({ length: 5000 }, newNonce);
    expect(nonces.every((nonce) => /^[0-9a-f]{16}$/.test(nonce))).toBe(true);
    expect(new Set(nonces).size).toBe(nonces.length);
  });
});
