import type { EndedJob, ExecResponse } from '@cli-mcp/agent-client';
import { formatElapsed, STDERR_LABEL } from './format.js';

/**
 * C-MCP-15: the lines a result starts with, one per background job (or command that held the shell) that ended
 * since the previous result — `[job %1 (pid 42) ended: exit 0 · 9.0 s · output: /workspace/.cli-mcp/out/1.stdout]`.
 * A held command's output after its yield point follows its line, closed by a line of its own so it never reads as
 * this command's output. Empty when nothing ended.
 */
export function endedJobLines(response: ExecResponse): string[] {
  return (response.ended_jobs ?? []).flatMap(endedJobText);
}

function endedJobText(end: EndedJob): string[] {
  const status = `exit ${end.exit_code}${end.signal === undefined ? '' : ` (${end.signal})`} · ${formatElapsed(end.duration_ms)}`;
  const files = [end.stdout_file, end.stderr_file].filter((f): f is string => f !== undefined);
  if (end.job !== undefined) {
    const pid = end.pid === undefined ? '' : ` (pid ${end.pid})`;
    const output = files.length > 0 ? ` · output: ${files.join(', ')}` : '';
    return [`[job ${end.job}${pid} ended: ${status}${output}]`];
  }
  const what = end.waited_for === undefined ? 'the earlier command that kept the shell' : `the earlier wait for ${end.waited_for}`;
  const saved = files.length > 0 ? ` · all its output: ${files.join(', ')}` : '';
  const out = end.stdout ?? '';
  const err = end.stderr ?? '';
  if (out === '' && err === '') return [`[${what} ended: ${status}${saved} · no output after its yield point]`];
  const body = [...(out === '' ? [] : [out]), ...(err === '' ? [] : [STDERR_LABEL, err])];
  return [`[${what} ended: ${status}${saved} · its output after its yield point:]`, ...body, `[end of ${what}'s output]`];
}
