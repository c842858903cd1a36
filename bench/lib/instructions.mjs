// Instructions a process executes from exec until it announces readiness on fd 3, counted by valgrind's callgrind:
// reproducible on a loaded machine, where start-up times move by ±50 %.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Undefined when callgrind can run here, else why not (printed by the bench). */
export function callgrindUnavailable() {
  if (process.env.BENCH_CALLGRIND === '0') return 'BENCH_CALLGRIND=0';
  const probe = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : 'valgrind is not installed (apt-get install valgrind)';
}

/** Millions of instructions (callgrind `Ir`) from exec of `node <args>` to its first write on fd 3, then SIGINT. */
export function instructionsToReady(args, env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  const out = join(dir, 'callgrind.out');
  const child = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${out}`, process.execPath, ...args], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    cwd: dir,
    env: { PATH: process.env.PATH, SANDBOX_AUTH_TOKEN: 'bench', SANDBOX_AGENT_HOST: '127.0.0.1', SANDBOX_AGENT_PORT: '0', SANDBOX_READY_FD: '3', SANDBOX_WORKDIR: dir, SANDBOX_LOG_LEVEL: 'warn', ...env },
  });
  let ready = false;
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    if (!String(chunk).startsWith('==')) stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdio[3].once('data', () => {
      ready = true;
      child.kill('SIGINT');
    });
    child.on('error', reject);
    child.on('exit', () => {
      try {
        // Under valgrind V8 sees other CPU features: e.g. a startup snapshot built outside it does not load.
        if (!ready) throw new Error(`did not start under valgrind${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}`);
        const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(out, 'utf8'))?.[1];
        if (total === undefined) throw new Error('callgrind wrote no total');
        resolve(Number(total) / 1e6);
      } catch (error) {
        reject(error);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
