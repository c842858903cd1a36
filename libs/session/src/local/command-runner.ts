import { execFile } from 'node:child_process';

export interface CommandResult {
  ok: boolean;
  /** Why it failed (exit status and the first line of stderr); empty on success. */
  detail: string;
}

/** Port for the one-shot probes (`bwrap … true`, `bash -c true`). */
export interface CommandRunner {
  run(command: string, args: string[], timeoutMs: number): Promise<CommandResult>;
}

const PROBE_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };

export class NodeCommandRunner implements CommandRunner {
  run(command: string, args: string[], timeoutMs: number): Promise<CommandResult> {
    return new Promise((resolve) => {
      execFile(command, args, { timeout: timeoutMs, env: PROBE_ENV, windowsHide: true }, (error, _stdout, stderr) => {
        if (!error) return resolve({ ok: true, detail: '' });
        const firstLine = String(stderr).trim().split('\n')[0] ?? '';
        resolve({ ok: false, detail: [error.message.split('\n')[0], firstLine].filter(Boolean).join(': ') });
      });
    });
  }
}
