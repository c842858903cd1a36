import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The official Python client (Debian `python3-kubernetes`, 22.x) as a third, independent client of the fake API
 * server beside kubectl and client-node. It runs under the distribution's Python — the pyenv `python3` on PATH
 * does not have it — through `python/kube_client.py`, one JSON request per line.
 */

export const SYSTEM_PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/kube_client.py', import.meta.url));

/** Why the Python client cannot run here, or undefined when `import kubernetes` works. */
export function pythonClientUnavailable(): string | undefined {
  if (!existsSync(SYSTEM_PYTHON)) return `${SYSTEM_PYTHON} does not exist (install python3-kubernetes)`;
  const probe = spawnSync(SYSTEM_PYTHON, ['-c', 'import kubernetes; print(kubernetes.__version__)'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) return `${SYSTEM_PYTHON} -c 'import kubernetes' failed (install python3-kubernetes): ${(probe.stderr || String(probe.error ?? '')).trim().split('\n').pop()}`;
  return undefined;
}

/** One answer of the script: the client's result, or the ApiException's HTTP code and parsed Status body. */
export type PythonAnswer<T = Record<string, unknown>> =
  | { ok: true; result: T }
  | { ok: false; status: number; body: { reason?: string; message?: string; code?: number; details?: Record<string, unknown> } };

/** A running `kube_client.py`: requests are answered in order, one line each. */
export class PythonKubeClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Array<{ resolve: (answer: PythonAnswer<never>) => void; reject: (error: Error) => void }> = [];
  private buffer = '';
  private stderr = '';

  constructor(kubeconfigPath: string) {
    this.child = spawn(SYSTEM_PYTHON, [SCRIPT, kubeconfigPath], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        this.pending.shift()?.resolve(JSON.parse(line) as PythonAnswer<never>);
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    this.child.once('exit', (code) => {
      for (const waiter of this.pending.splice(0)) waiter.reject(new Error(`kube_client.py exited with ${code}: ${this.stderr.slice(-2000)}`));
    });
  }

  call<T = Record<string, unknown>>(op: string, args: Record<string, unknown>): Promise<PythonAnswer<T>> {
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve: resolve as (answer: PythonAnswer<never>) => void, reject });
      this.child.stdin.write(`${JSON.stringify({ op, args })}\n`);
    });
  }

  /** Like `call`, for calls that must succeed: returns the result or throws with the Status. */
  async ok<T = Record<string, unknown>>(op: string, args: Record<string, unknown>): Promise<T> {
    const answer = await this.call<T>(op, args);
    if (!answer.ok) throw new Error(`python ${op} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.result;
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolveStop) => {
      this.child.once('exit', () => resolveStop());
      this.child.stdin.end();
    });
  }
}
