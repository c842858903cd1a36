/**
 * `--local-max-processes` / `--local-max-memory` (C-SEC-3) with real cgroups, bubblewrap and the agent: a fork
 * flood and a memory hog stop at the sandbox's own limits. Where this host gives no writable cgroup the test
 * skips with the reason the server itself would print.
 */
import { describe, expect, it } from 'vitest';
import { CgroupLimits } from '../../../libs/session/src/local/cgroup-limits.js';
import { agentBuilt, bwrapProblem } from './support/environment.js';
import { createSessionStack } from './support/session-stack.js';

async function cgroupProblem(): Promise<string | undefined> {
  const probe = new CgroupLimits({ maxProcesses: 64, maxMemoryBytes: 256 * 2 ** 20 }, undefined, process.pid + 1_000_000);
  try {
    await probe.prepare();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await probe.close();
  }
}

const skip = !agentBuilt ? 'the agent is not built' : bwrapProblem ?? (await cgroupProblem());
if (skip) console.warn(`[limits] skipped: ${skip}`);

describe.skipIf(skip !== undefined)('per-sandbox limits through cgroups', () => {
  it('stops a fork flood at --local-max-processes and a memory hog at --local-max-memory, and the session goes on', async () => {
    const stack = await createSessionStack('bwrap', { network: 'none', maxProcesses: 64, maxMemoryBytes: 256 * 2 ** 20 });
    try {
      // Forks until the kernel refuses (EAGAIN), then ends its children again.
      const forker = [
        'import os, signal, time',
        'kids = []',
        'try:',
        '    while len(kids) < 200:',
        '        pid = os.fork()',
        '        if pid == 0:',
        '            time.sleep(30)',
        '            os._exit(0)',
        '        kids.append(pid)',
        'except OSError as error:',
        '    print("refused after", len(kids), "errno", error.errno)',
        'for pid in kids:',
        '    os.kill(pid, signal.SIGKILL)',
        '    os.waitpid(pid, 0)',
      ].join('\n');
      const flood = await stack.run('s-limits', `/usr/bin/python3 -c '${forker}'`);
      const [, count, errno] = /^refused after (\d+) errno (\d+)$/.exec(flood.response.stdout) ?? [];
      expect(Number(errno)).toBe(11);
      expect(Number(count)).toBeLessThan(64);
      const hog = await stack.run('s-limits', "/usr/bin/python3 -c \"b = bytearray(b'x' * (400 * 2**20)); print('allocated')\"; echo \"exit=$?\"");
      expect(hog.response.stdout).toMatch(/exit=(137|1)$/);
      expect(hog.response.stdout).not.toContain('allocated');
      expect((await stack.run('s-limits', 'echo alive')).response.stdout).toBe('alive');
    } finally {
      await stack.close();
    }
  });
});
