import { describe, expect, it } from 'vitest';
import { STATE_RESET_NOTICE, type ExecResponse } from '@cli-mcp/agent-client';
import { execResponse } from '../../../test/fakes.js';
import { formatElapsed, NO_OUTPUT, renderResult, STDERR_LABEL, statusLine, type RenderInput } from './render-result.js';

// The fixture's defaults with the 12 ms duration these expectations show.
const response = (overrides: Partial<ExecResponse> = {}): ExecResponse => execResponse({ duration_ms: 12, ...overrides });

function render(overrides: Partial<ExecResponse> = {}, input: Partial<RenderInput> = {}) {
  return renderResult({ response: response(overrides), sandboxRecreated: false, timeoutSeconds: 60, format: 'text', maxChars: 30_000, ...input });
}

const lines = (count: number, prefix = 'line'): string => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`).join('\n');

/** Splits a kept text at its marker: the kept head (with its own newline, if any) and the kept tail. */
function splitKept(full: string, kept: string): [string, string] {
  const match = /^([\s\S]*?)\[… \d+ bytes \(\d+ lines\) omitted …\]\n?([\s\S]*)$/.exec(kept);
  if (!match) throw new Error(`no marker in ${kept}`);
  const tail = match[2] ?? '';
  let head = match[1] ?? '';
  // The renderer adds a newline before the marker only when the kept head does not end with a real one.
  if (head.endsWith('\n') && !full.startsWith(head)) head = head.slice(0, -1);
  return [head, tail];
}

/** Rebuilds the exact dropped counts from a kept text: what is missing between the head and tail parts. */
function omittedOf(full: string, kept: string): { bytes: number; lines: number } {
  const [head, tail] = splitKept(full, kept);
  expect(full.startsWith(head)).toBe(true);
  expect(full.endsWith(tail)).toBe(true);
  const dropped = full.slice(head.length, full.length - tail.length);
  return { bytes: Buffer.byteLength(dropped), lines: dropped.split('\n').length - 1 };
}

describe(renderResult.name, () => {
  describe('text format (C-MCP-5)', () => {
    it('shows stdout as plain text, never JSON-escaped, then the status line', () => {
      const result = render({ stdout: 'a "quoted" <tag> & \\ back\nline2' });
      expect(result.text).toBe('a "quoted" <tag> & \\ back\nline2\n[exit 0 · 12 ms]');
      expect(result.isError).toBe(false);
    });

    it('adds a labelled stderr section after stdout only when stderr is non-empty', () => {
      expect(render({ stdout: 'out', stderr: 'err' }).text).toBe(`out\n${STDERR_LABEL}\nerr\n[exit 0 · 12 ms]`);
      expect(render({ stderr: 'only err' }).text).toBe(`${STDERR_LABEL}\nonly err\n[exit 0 · 12 ms]`);
    });

    it('says when there is no output at all', () => {
      expect(render().text).toBe(`${NO_OUTPUT}\n[exit 0 · 12 ms]`);
    });

    it('marks non-zero exits as errors but keeps the full rendering and structured output (C-MCP-4)', () => {
      const result = render({ stdout: 'partial', stderr: 'boom', exit_code: 1, duration_ms: 1530 });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(`partial\n${STDERR_LABEL}\nboom\n[exit 1 · 1.5 s]`);
      expect(result.structured).toMatchObject({ stdout: 'partial', stderr: 'boom', exit_code: 1, duration_ms: 1530 });
    });

    it('adds the timeout notice with the effective timeout', () => {
      const result = render(
        { stdout: 'partial_line', stderr: 'command timed out', exit_code: 137, timed_out: true, duration_ms: 5004 },
        { timeoutSeconds: 5 },
      );
      expect(result.text).toBe(`partial_line\n${STDERR_LABEL}\ncommand timed out\n[command timed out after 5 s]\n[exit 137 · 5.0 s]`);
      expect(result.structured.timed_out).toBe(true);
      expect(result.isError).toBe(true);
    });

    it('names the deadline the agent applied when it reports one (C-AG-14), whatever the server assumed', () => {
      const result = render(
        { stderr: 'command timed out', exit_code: 137, timed_out: true, timeout_seconds: 900, duration_ms: 900_004 },
        { timeoutSeconds: 300 },
      );
      expect(result.text).toContain('[command timed out after 900 s]');
      expect(result.text).not.toContain('300 s');
      expect(result.structured.timeout_seconds).toBe(900);
      const fraction = render({ exit_code: 137, timed_out: true, timeout_seconds: 0.5 }, { timeoutSeconds: 1 });
      expect(fraction.text).toContain('[command timed out after 0.5 s]');
    });

    describe('a command still running at the yield point (C-MCP-11)', () => {
      const files = { stdout_file: '/workspace/.cli-mcp/out/17.stdout', stderr_file: '/workspace/.cli-mcp/out/17.stderr' };

      it('as a job: a normal result naming the job, its pid, its files and how to follow it', () => {
        const result = render({
          stdout: 'step 1', exit_code: -1, duration_ms: 50_012, running: true, yield_mode: 'job', job: '%1', job_pid: 4242,
          timeout_seconds: 300, ...files,
        });
        expect(result.isError).toBe(false);
        expect(result.text).toBe([
          'step 1',
          '[still running after 50.0 s as background job %1 (pid 4242) of this shell — its further output goes to ' +
            '/workspace/.cli-mcp/out/17.stdout and /workspace/.cli-mcp/out/17.stderr; its own timeout (300 s) still applies. ' +
            'Later commands run at once. Follow it with: jobs · wait %1 · tail -n 50 /workspace/.cli-mcp/out/17.stdout · kill %1]',
          '[running as job %1 · 50.0 s]',
        ].join('\n'));
        expect(result.structured).toMatchObject({ running: true, yield_mode: 'job', job: '%1', job_pid: 4242, exit_code: -1, ...files });
      });

      it('in the shell itself: says why and what it means for later calls', () => {
        const result = render({ exit_code: -1, running: true, yield_mode: 'shell', yield_reason: 'it runs in the session shell itself', duration_ms: 2000 });
        expect(result.isError).toBe(false);
        expect(result.text).toContain('could not become a background job: it runs in the session shell itself');
        expect(result.text.endsWith('[still running · 2.0 s]')).toBe(true);
      });

      it('queued: says the command never ran and what holds the shell', () => {
        const result = render({ exit_code: -1, running: true, yield_mode: 'queued', yield_reason: 'an earlier command still holds the session shell; its latest output:\nstep 7' });
        expect(result.text).toContain('[not run: an earlier command still holds the session shell; its latest output:\nstep 7]');
        expect(result.text.endsWith('[not started]')).toBe(true);
      });

      it('keeps the Go JSON format valid, with the notice at the end of stderr', () => {
        const result = render({ stdout: 'x', exit_code: -1, running: true, yield_mode: 'job', job: '%2', job_pid: 7, ...files }, { format: 'json' });
        const parsed = JSON.parse(result.text) as Record<string, unknown>;
        expect(Object.keys(parsed)).toEqual(['stdout', 'stderr', 'exit_code', 'duration_ms']);
        expect(parsed).toMatchObject({ stdout: 'x', exit_code: -1 });
        expect(parsed.stderr).toContain('background job %2 (pid 7)');
      });
    });

    it('adds cancel, binary and sandbox-recreated notices', () => {
      const result = render(
        { stdout: 'x\u0000y', stdout_binary: true, exit_code: 130, cancelled: true },
        { sandboxRecreated: true },
      );
      expect(result.text.split('\n')).toEqual([
        'x\u0000y',
        '[stdout looks like binary data (NUL bytes); the text shown is lossy]',
        '[command was cancelled]',
        '[the sandbox was recreated: files and shell state from earlier commands are gone]',
        '[exit 130 · 12 ms]',
      ]);
      expect(result.structured).toMatchObject({ cancelled: true, sandbox_recreated: true, sandbox_files_kept: false, stdout_binary: true });
    });

    it('says the files were kept when only the shell was lost (local agent crash, container restart)', () => {
      const result = render({ stdout: 'kept' }, { sandboxRecreated: true, sandboxLoss: { shellState: true, files: false } });
      expect(result.text.split('\n')).toEqual([
        'kept',
        '[the sandbox\'s shell was restarted: shell state from earlier commands (working directory, variables, functions, aliases, background jobs) is gone; files in /workspace were kept]',
        '[exit 0 · 12 ms]',
      ]);
      expect(result.structured).toMatchObject({ sandbox_recreated: true, sandbox_files_kept: true });
      expect(render({ stdout: 'x' }, { sandboxRecreated: true, sandboxLoss: { shellState: true, files: true } }).text)
        .toContain('[the sandbox was recreated: files and shell state from earlier commands are gone]');
    });

    it('says why, when the backend stopped the sandbox (a bound, issue 22)', () => {
      const reason = 'the sandbox was stopped because /workspace used 5Gi, 1Gi over its 4Gi bound (--local-max-disk); delete files to get below it';
      const result = render({ stdout: 'x' }, { sandboxRecreated: true, sandboxLoss: { shellState: true, files: false, reason } });
      expect(result.text.split('\n').slice(1, 3)).toEqual([expect.stringContaining('files in /workspace were kept'), `[${reason}]`]);
    });

    it('does not repeat the state-reset notice the agent put at the start of stderr, but adds it otherwise', () => {
      const shown = render({ stderr: `${STATE_RESET_NOTICE}\n`, state_reset: true, stdout: 'ok' });
      expect(shown.text.split(STATE_RESET_NOTICE)).toHaveLength(2);
      const missing = render({ stdout: 'ok', state_reset: true });
      expect(missing.text).toBe(`ok\n${STATE_RESET_NOTICE}\n[exit 0 · 12 ms]`);
      expect(missing.structured.state_reset).toBe(true);
    });

    it('keeps unicode intact', () => {
      const text = 'héllo wörld — 日本語 🎉';
      expect(render({ stdout: text }).text.startsWith(text)).toBe(true);
    });
  });

  describe('output budget (C-MCP-6)', () => {
    it('keeps head and tail within --max-output-chars and counts the omitted middle exactly', () => {
      const stdout = lines(5000);
      const result = render({ stdout }, { maxChars: 2000 });
      expect(result.text.length).toBeLessThanOrEqual(2000);
      expect(result.text.startsWith('line 1\nline 2\n')).toBe(true);
      expect(result.text).toMatch(/\nline 5000\n\[stdout: \d+ bytes/);
      expect(result.text.endsWith('[exit 0 · 12 ms]')).toBe(true);
      const omitted = omittedOf(stdout, result.structured.stdout);
      expect(result.structured).toMatchObject({
        truncated: true,
        stdout_bytes: Buffer.byteLength(stdout),
        stdout_omitted_bytes: omitted.bytes,
        stdout_omitted_lines: omitted.lines,
      });
      expect(result.text).toContain(`[stdout: ${omitted.bytes} bytes (${omitted.lines} lines) omitted from the middle; the full output was not saved]`);
    });

    it('cuts at line boundaries when one is near', () => {
      const result = render({ stdout: lines(5000) }, { maxChars: 2000 });
      const [head = '', tail = ''] = result.structured.stdout.split(/\[… .* omitted …\]/);
      expect(head.endsWith('\n')).toBe(true);
      expect(tail.startsWith('\nline ')).toBe(true);
      expect(head.split('\n').slice(0, -1).every((line) => /^line \d+$/.test(line))).toBe(true);
    });

    it('gives the tail more room than the head', () => {
      const result = render({ stdout: lines(5000) }, { maxChars: 3000 });
      const [head = '', tail = ''] = result.structured.stdout.split(/\[… .* omitted …\]/);
      expect(tail.length).toBeGreaterThan(head.length);
    });

    it('composes the agent head/tail parts and adds the agent omitted counts to ours', () => {
      const head = lines(2000, 'head');
      const tail = lines(2000, 'tail');
      const result = render(
        {
          stdout: head,
          stdout_tail: tail,
          stdout_omitted_bytes: 1_000_000,
          stdout_omitted_lines: 50_000,
          stdout_bytes: 1_000_000 + Buffer.byteLength(head) + Buffer.byteLength(tail),
          stdout_file: '/workspace/.cli-mcp/out/7.stdout',
          truncated: true,
        },
        { maxChars: 4000 },
      );
      expect(result.text.length).toBeLessThanOrEqual(4000);
      const [keptHead, keptTail] = splitKept(head, result.structured.stdout);
      expect(head.startsWith(keptHead)).toBe(true);
      expect(tail.endsWith(keptTail)).toBe(true);
      const droppedHead = head.slice(keptHead.length);
      const droppedTail = tail.slice(0, tail.length - keptTail.length);
      const bytes = 1_000_000 + Buffer.byteLength(droppedHead) + Buffer.byteLength(droppedTail);
      const newlines = 50_000 + (droppedHead.match(/\n/g)?.length ?? 0) + (droppedTail.match(/\n/g)?.length ?? 0);
      expect(result.structured).toMatchObject({ stdout_omitted_bytes: bytes, stdout_omitted_lines: newlines, stdout_file: '/workspace/.cli-mcp/out/7.stdout' });
      expect(result.text).toContain(`[stdout: ${bytes} bytes (${newlines} lines) omitted from the middle; full output: /workspace/.cli-mcp/out/7.stdout]`);
    });

    it('shows the agent omission as is when the agent parts fit', () => {
      const result = render({ stdout: 'first', stdout_tail: 'last', stdout_omitted_bytes: 123, stdout_omitted_lines: 4, truncated: true });
      expect(result.text).toBe(
        'first\n[… 123 bytes (4 lines) omitted …]\nlast\n[stdout: 123 bytes (4 lines) omitted from the middle; the full output was not saved]\n[exit 0 · 12 ms]',
      );
      expect(result.structured).toMatchObject({ truncated: true, stdout_omitted_bytes: 123, stdout_omitted_lines: 4 });
    });

    it('lets a small stderr keep everything and gives stdout the rest', () => {
      const result = render({ stdout: lines(5000), stderr: 'warning: one thing' }, { maxChars: 2000 });
      expect(result.structured.stderr).toBe('warning: one thing');
      expect(result.structured.stderr_omitted_bytes).toBeUndefined();
      expect(result.text.length).toBeLessThanOrEqual(2000);
    });

    it('splits the budget when both streams overflow, stdout getting the larger share', () => {
      const stdout = lines(4000, 'out');
      const stderr = lines(4000, 'err');
      const result = render({ stdout, stderr }, { maxChars: 3000 });
      expect(result.text.length).toBeLessThanOrEqual(3000);
      expect(result.structured.stdout.length).toBeGreaterThan(result.structured.stderr.length);
      expect(result.structured.stderr_omitted_bytes).toBe(omittedOf(stderr, result.structured.stderr).bytes);
      expect(result.structured.stdout_omitted_lines).toBe(omittedOf(stdout, result.structured.stdout).lines);
    });

    it('counts multi-byte characters as UTF-8 bytes and never splits a surrogate pair', () => {
      const stdout = '🎉'.repeat(3000); // no newlines: cuts fall inside the run
      const result = render({ stdout }, { maxChars: 1500 });
      const kept = result.structured.stdout;
      expect(kept).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      const omitted = omittedOf(stdout, kept);
      expect(result.structured.stdout_omitted_bytes).toBe(omitted.bytes);
      expect(omitted.bytes % 4).toBe(0);
      expect(result.text.length).toBeLessThanOrEqual(1500);
    });

    it('does not cut output that fits, even close to the budget', () => {
      const stdout = 'x'.repeat(1000 - '\n[exit 0 · 12 ms]'.length);
      const result = render({ stdout }, { maxChars: 1000 });
      expect(result.text.length).toBe(1000);
      expect(result.structured.truncated).toBe(false);
    });

    it('holds the budget for many notices and long file paths too', () => {
      const file = `/workspace/.cli-mcp/out/${'deep/'.repeat(20)}1.stdout`;
      const result = render(
        {
          stdout: lines(3000),
          stderr: lines(3000),
          stdout_file: file,
          stderr_file: file,
          stdout_binary: true,
          stderr_binary: true,
          timed_out: true,
          cancelled: true,
          state_reset: true,
          exit_code: 137,
        },
        { maxChars: 1000, sandboxRecreated: true },
      );
      expect(result.text.length).toBeLessThanOrEqual(1000);
      expect(result.text).toContain(`full output: ${file}`);
    });
  });

  describe('json format (Go compatibility)', () => {
    it('emits the Go JSON object with the four fields in Go order', () => {
      const result = render({ stdout: 'hi', stderr: 'oops', exit_code: 2, duration_ms: 7 }, { format: 'json' });
      expect(result.text).toBe('{"stdout":"hi","stderr":"oops","exit_code":2,"duration_ms":7}');
      expect(JSON.parse(result.text)).toEqual({ stdout: 'hi', stderr: 'oops', exit_code: 2, duration_ms: 7 });
      expect(result.isError).toBe(true);
    });

    it('uses the same budget-kept texts', () => {
      const result = render({ stdout: lines(5000) }, { format: 'json', maxChars: 2000 });
      expect(JSON.parse(result.text).stdout).toBe(result.structured.stdout);
      expect(result.structured.truncated).toBe(true);
    });
  });

  it('always fills the structured fields with exact numbers', () => {
    const result = render({ stdout: 'é', stderr: '', exit_code: 0, duration_ms: 3 });
    expect(result.structured).toEqual({
      stdout: 'é',
      stderr: '',
      exit_code: 0,
      duration_ms: 3,
      timed_out: false,
      cancelled: false,
      truncated: false,
      state_reset: false,
      sandbox_recreated: false,
      stdout_bytes: 2,
      stderr_bytes: 0,
    });
  });
});

describe(statusLine.name, () => {
  it('shows exit code and duration compactly', () => {
    expect(statusLine(response({ exit_code: 3, duration_ms: 999 }))).toBe('[exit 3 · 999 ms]');
  });
});

describe(formatElapsed.name, () => {
  it.each([
    [0, '0 ms'],
    [12, '12 ms'],
    [1000, '1.0 s'],
    [59_949, '59.9 s'],
    [60_000, '1 min'],
    [125_000, '2 min 5 s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });
});
