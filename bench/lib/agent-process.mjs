// Starts a built sandbox agent on an ephemeral loopback port (or a Unix socket) and learns where it listens from
// SANDBOX_READY_FD.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_NODE_FLAGS } from '../../dist/libs/common/src/index.js';

export const AGENT_ENTRY = new URL('../../dist/sandbox-agent/main.js', import.meta.url).pathname;

/**
 * Spawns the agent (`socket: true` → on `<workdir>/agent.sock`) with the Node flags the product's launchers pass;
 * resolves once it wrote its port on fd 3.
 */
export function startAgent({ token = 'bench-token', env = {}, socket = false, entry = [...AGENT_NODE_FLAGS, AGENT_ENTRY] } = {}) {
  const workdir = mkdtempSync(join(tmpdir(), 'agent-bench-'));
  const socketPath = join(workdir, 'agent.sock');
  const startedAt = process.hrtime.bigint();
  const child = spawn(process.execPath, entry, {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      SANDBOX_AUTH_TOKEN: token,
      SANDBOX_AGENT_HOST: '127.0.0.1',
      SANDBOX_AGENT_PORT: '0',
      SANDBOX_READY_FD: '3',
      SANDBOX_WORKDIR: workdir,
      SANDBOX_LOG_LEVEL: 'warn',
      ...(socket ? { SANDBOX_AGENT_SOCKET: socketPath } : {}),
      ...env,
    },
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdio[3].on('data', (chunk) => {
      text += chunk.toString();
      const match = /^(\d+|unix)\n/.exec(text);
      if (match) {
        const url = match[1] === 'unix' ? `unix:${socketPath}` : `http://127.0.0.1:${match[1]}`;
        resolve({ child, url, token, workdir, startedAt });
      }
    });
    // Whenever the agent exits (stopped, or early), its workdir goes: its shell's files and saved outputs, up to
    // hundreds of MB per bench run.
    child.on('exit', (code) => {
      rmSync(workdir, { recursive: true, force: true });
      reject(new Error(`agent exited early with ${code}`));
    });
    child.on('error', reject);
  });
}

/** Stops the agent; its exit removes its workdir (startAgent). */
export async function stopAgent(agent) {
  if (agent.child.exitCode !== null) return;
  const exited = new Promise((resolve) => agent.child.on('exit', resolve));
  agent.child.kill('SIGTERM');
  await exited;
}

/** Resident set size of a process in MB, from /proc. */
export async function rssMb(pid) {
  return (await memoryMb(pid)).rss;
}

/**
 * A process's memory in MB from /proc/<pid>/smaps_rollup: `rss`; `anonymous` (heap, stacks, JIT code: what the
 * process costs on top of the shared node binary); `private` (Private_Clean + Private_Dirty: pages no other
 * process maps, file-backed ones included).
 */
export async function memoryMb(pid) {
  const text = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch((error) => {
    // A non-dumpable agent's smaps_rollup is closed to its own user without CAP_SYS_PTRACE (issue 22 item 4):
    // /proc/<pid>/status is not, and has the same Rss and anonymous figures (not the private ones).
    if (error.code !== 'EACCES') throw error;
    return readFile(`/proc/${pid}/status`, 'utf8').then((status) => status.replace(/^VmRSS:/m, 'Rss:').replace(/^RssAnon:/m, 'Anonymous:'));
  });
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return {
    rss: kb('Rss') / 1024,
    anonymous: kb('Anonymous') / 1024,
    private: (kb('Private_Clean') + kb('Private_Dirty')) / 1024,
  };
}
