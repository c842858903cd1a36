import type { ExecResponse } from '@cli-mcp/agent-client';
import { formatElapsed, formatSeconds } from './format.js';

/** Status line of a result whose command keeps running (C-MCP-11): it has no exit status yet. */
export function runningStatus(response: ExecResponse, elapsed: string): string {
  switch (response.yield_mode) {
    case 'job':
      return `[running as job ${response.job ?? '%+'} · ${elapsed}]`;
    case 'queued':
      return '[not started]';
    case 'shell':
    case 'waiting':
    case undefined:
      return `[still running · ${elapsed}]`;
  }
}

/**
 * The notice of a result whose command keeps running (C-MCP-11): how it goes on and how to follow it, in bash's own
 * job syntax. Empty for a finished command.
 */
export function runningNotices(response: ExecResponse, timeoutSeconds: number): string[] {
  if (response.running !== true) return [];
  const after = formatElapsed(response.duration_ms);
  const files = [response.stdout_file, response.stderr_file].filter((f): f is string => f !== undefined);
  const limit = `its own timeout (${formatSeconds(response.timeout_seconds ?? timeoutSeconds)} s) still applies`;
  switch (response.yield_mode) {
    case 'job': {
      const job = response.job ?? '%+';
      const pid = response.job_pid === undefined ? '' : ` (pid ${response.job_pid})`;
      const where = files.length > 0 ? `its further output goes to ${files.join(' and ')}` : 'its further output is not saved';
      const tail = files.length > 0 ? ` · tail -n 50 ${files[0]}` : '';
      return [`[still running after ${after} as background job ${job}${pid} of this shell — ${where}; ${limit}. ` +
        `Later commands run at once. Follow it with: jobs · wait ${job}${tail} · kill ${job}]`];
    }
    case 'shell':
      // C-MCP-15: a held `wait` names what it waits for (the agent sends it as `job`).
      return [`[still running after ${after} in the session shell itself${response.job === undefined ? '' : ` (waiting for ${response.job})`}, so it could not become a background job: ` +
        `${response.yield_reason ?? 'its shape cannot be detached'}. The shell stays busy until it ends (${limit}); ` +
        `later calls wait for it and each returns at its own yield point; its end and later output lead the first result after it.${files.length > 0 ? ` Output so far: ${files.join(', ')}` : ''}]`];
    case 'queued':
      return [`[not run: ${response.yield_reason ?? 'an earlier command still holds the session shell'}]`,
        '[run the command again once the earlier one has ended; ending the session (DELETE) stops it]'];
    case 'waiting':
      return [`[the wait was interrupted after ${after}, at this call's yield point; the jobs it waited for keep running — ` +
        'check them with jobs, or wait again]'];
    case undefined:
      return [`[still running after ${after}]`];
  }
}
