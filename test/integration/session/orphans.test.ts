import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isAlive, processRef } from '@cli-mcp/testing';
import { expect, it, vi } from 'vitest';
import { AGENT_ENTRY, isolationProblem, ISOLATIONS } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { descendantsOf } from './support/processes.js';

const register = fileURLToPath(new URL('./support/register-ts.mjs', import.meta.url));
const parentScript = fileURLToPath(new URL('./support/orphan-parent.mjs', import.meta.url));

// C-HTTP-4 "no orphaned sandbox processes": when the server dies without cleaning up (kill -9), every agent, its
// shell and (bwrap) the sandbox itself must go too (SANDBOX_EXIT_WITH_PARENT, bwrap --die-with-parent).
for (const isolation of ISOLATIONS) describeWhenReady(`LocalBackend orphans (isolation=${isolation})`, isolationProblem(isolation), () => {
  it('leaves no sandbox process behind when the server is killed with SIGKILL', async () => {
    const stateDir = await mkdtemp('/var/tmp/cli-mcp-orphan-it-');
    const parent = spawn(process.execPath, ['--import', register, parentScript, stateDir, isolation, AGENT_ENTRY], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: parent.stdout! });
      const [line] = (await once(lines, 'line')) as [string];
      expect(JSON.parse(line)).toEqual({ ready: true });
      const tree = descendantsOf(parent.pid!).map(processRef);
      // Two sessions: an agent (and its bash) each, plus the bwrap processes in bwrap mode.
      expect(tree.length).toBeGreaterThanOrEqual(4);
      expect(tree.every(isAlive)).toBe(true);

      const exited = once(parent, 'exit');
      parent.kill('SIGKILL');
      await exited;
      await vi.waitFor(() => expect(tree.filter(isAlive)).toEqual([]), { timeout: 20_000, interval: 100 });
    } finally {
      if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
