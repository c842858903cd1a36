// Starts a built sandbox agent on an ephemeral loopback port and learns its port from SANDBOX_READY_FD.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const AGENT_ENTRY = new URL('../../dist/sandbox-agent/main.js', import.meta.url).pathname;

/** Spawns the agent; resolves once it wrote its port on fd 3. */
export function startAgent({ token = 'bench-token', env = {} } = {}) {
  const workdir = mkdtempSync(join(tmpdir(), 'agent-bench-'));
  const startedAt = process.hrtime.bigint();
  const child = spawn(process.execPath, [AGENT_ENTRY], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      SANDBOX_AUTH_TOKEN: token,
      SANDBOX_AGENT_HOST: '127.0.0.1',
      SANDBOX_AGENT_PORT: '0',
      SANDBOX_READY_FD: '3',
      SANDBOX_WORKDIR: workdir,
      SANDBOX_LOG_LEVEL: 'warn',
      ...env,
    },
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdio[3].on('data', (chunk) => {
      text += chunk.toString();
      const match = /^(\d+)\n/.exec(text);
      if (match) resolve({ child, url: `http://127.0.0.1:${match[1]}`, token, workdir, startedAt });
    });
    child.on('exit', (code) => reject(new Error(`agent exited early with ${code}`)));
    child.on('error', reject);
  });
}

export async function stopAgent(agent) {
  if (agent.child.exitCode !== null) return;
  const exited = new Promise((resolve) => agent.child.on('exit', resolve));
  agent.child.kill('SIGTERM');
  await exited;
}

/** Resident set size of a process in MB, from /proc. */
export async function rssMb(pid) {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}
