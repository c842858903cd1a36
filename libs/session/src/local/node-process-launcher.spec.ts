import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, processRef } from '@cli-mcp/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeProcessLauncher } from './node-process-launcher.js';

describe('NodeProcessLauncher.kill', () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('after the leader exited, still reaches what it left in its process group', async () => {
    dir = mkdtempSync(join(tmpdir(), 'launcher-spec-'));
    // The "agent" leaves a sleeper in its group, reports it, and exits.
    const agent = new NodeProcessLauncher().launch({
      command: 'sh', args: ['-c', 'sleep 30 & echo $! > left.pid; echo ready >&3; exit 0'], env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' }, cwd: dir,
    });
    await agent.exited;
    const left = processRef(Number(readFileSync(join(dir, 'left.pid'), 'utf8')));
    expect(isAlive(left)).toBe(true);
    agent.kill('SIGKILL');
    for (let i = 0; i < 100 && isAlive(left); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(left)).toBe(false);
  });
});
