import { describe, expect, it } from 'vitest';
import { execResponse } from '../../../test/fakes.js';
import { renderResult } from './render-result.js';

// C-MCP-15: ended jobs lead the result, one line each; a held command's later output is closed by its own line.
const render = (ended: NonNullable<ReturnType<typeof execResponse>['ended_jobs']>, format: 'text' | 'json' = 'text', maxChars = 30_000) =>
  renderResult({ response: execResponse({ stdout: 'now', duration_ms: 12, ended_jobs: ended }), sandboxRecreated: false, timeoutSeconds: 60, format, maxChars });

describe('ended jobs in a result (C-MCP-15)', () => {
  it('a job: spec, pid, status, duration and files, before the output', () => {
    const text = render([{ job: '%1', pid: 42, exit_code: 0, duration_ms: 59_200, stdout_file: '/w/1.stdout', stderr_file: '/w/1.stderr' }]).text;
    expect(text).toBe('[job %1 (pid 42) ended: exit 0 · 59.2 s · output: /w/1.stdout, /w/1.stderr]\nnow\n[exit 0 · 12 ms]');
  });

  it('a signal death names the signal; a job without files has no output part', () => {
    expect(render([{ job: '%2', pid: 7, exit_code: 143, signal: 'Terminated', duration_ms: 800 }]).text.split('\n')[0])
      .toBe('[job %2 (pid 7) ended: exit 143 (Terminated) · 800 ms]');
  });

  it('a held wait: its later output between its line and a closing line, stderr labelled', () => {
    const text = render([{ exit_code: 1, duration_ms: 2_500, waited_for: '%1', stdout: 'rc=1', stderr: 'oops' }]).text;
    expect(text).toBe([
      '[the earlier wait for %1 ended: exit 1 · 2.5 s · its output after its yield point:]', 'rc=1', '--- stderr ---', 'oops',
      "[end of the earlier wait for %1's output]", 'now', '[exit 0 · 12 ms]'].join('\n'));
    expect(render([{ exit_code: 0, duration_ms: 5 }]).text.split('\n')[0])
      .toBe('[the earlier command that kept the shell ended: exit 0 · 5 ms · no output after its yield point]');
  });

  it('a result with only ended jobs still says (no output); the lines count in the size budget; JSON puts them in stderr', () => {
    const result = renderResult({ response: execResponse({ duration_ms: 12, ended_jobs: [{ job: '%1', exit_code: 0, duration_ms: 5 }] }),
      sandboxRecreated: false, timeoutSeconds: 60, format: 'text', maxChars: 30_000 });
    expect(result.text).toBe('[job %1 ended: exit 0 · 5 ms]\n(no output)\n[exit 0 · 12 ms]');
    const long = renderResult({ response: execResponse({ stdout: 'x'.repeat(2_000), duration_ms: 12,
      ended_jobs: [{ job: '%1', exit_code: 0, duration_ms: 5, stdout_file: `/${'d'.repeat(300)}` }] }),
    sandboxRecreated: false, timeoutSeconds: 60, format: 'text', maxChars: 1_000 });
    expect(long.text.length).toBeLessThanOrEqual(1_000);
    expect(long.text.startsWith('[job %1 ended')).toBe(true);
    const json = JSON.parse(render([{ job: '%1', exit_code: 0, duration_ms: 5 }], 'json').text) as { stderr: string };
    expect(json.stderr).toBe('[job %1 ended: exit 0 · 5 ms]');
  });
});
