/**
 * Issue 22 item 3, with real bubblewrap and the real agent: links a sandbox plants toward host files — symlinks
 * made by its commands, hard links made to host files beside the state dir — in `/workspace` and in its outputs
 * folder (`.cli-mcp/out`) lead no cleanup (idle reap, `--local-reset-state`) and no output read to the host files.
 * (DELETE with the same links: redirect.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem;

const CANARY = 'host canary, must stay as it is';

describeWhenReady('cleanup and output reads follow no link a sandbox planted (issue 22)', problem, () => {
  let host: string;

  beforeAll(async () => {
    // On the state dirs' file system (/var/tmp, session-stack.ts), so hard links to it can be made.
    host = await mkdtemp(`/var/tmp/cli-mcp-it-canary-${randomBytes(3).toString('hex')}-`);
    await mkdir(join(host, 'dir'));
    await writeFile(join(host, 'dir', 'kept.txt'), CANARY);
    await writeFile(join(host, 'canary.txt'), CANARY);
  });
  afterAll(async () => {
    await rm(host, { recursive: true, force: true });
  });

  /** The session's command plants symlinks, the host side hard links; then its saved output is read back. */
  async function plant(stack: SessionStack, sessionId: string): Promise<string> {
    // A large output first, so the agent has an outputs folder it writes, reads and prunes.
    await stack.run(sessionId, 'head -c 300000 /dev/zero | tr "\\0" x; echo');
    const links = [
      `for d in /workspace /workspace/.cli-mcp/out; do ln -s ${host}/canary.txt $d/file-link; ln -s ${host}/dir $d/dir-link; done`,
      `ln -sf ${host}/canary.txt /workspace/.cli-mcp/out/1.stdout`,
      'echo planted',
    ].join('; ');
    expect((await stack.run(sessionId, links)).response.stdout).toBe('planted');
    const workspace = join(stack.stateDir, 'sessions', sessionId, 'workspace');
    await link(join(host, 'canary.txt'), join(workspace, 'hard-link'));
    await link(join(host, 'canary.txt'), join(workspace, '.cli-mcp', 'out', '2.stdout'));
    // The saved output read back the way a client reads it, and the agent's retention pass over the folder.
    const read = await stack.run(sessionId, 'cat /workspace/.cli-mcp/out/1.stdout /workspace/file-link 2>&1 | head -c 200; head -c 400000 /dev/zero | tr "\\0" y; echo');
    expect(read.response.stdout + read.response.stderr).not.toContain(CANARY);
    return workspace;
  }

  function expectCanaryUntouched(): Promise<void> {
    return (async () => {
      expect(await readFile(join(host, 'canary.txt'), 'utf8')).toBe(CANARY);
      expect(await readFile(join(host, 'dir', 'kept.txt'), 'utf8')).toBe(CANARY);
    })();
  }

  it('the idle reap removes the links, never their targets', async () => {
    const stack = await createSessionStack('bwrap', { network: 'none', idleTimeoutMs: 1_500 });
    try {
      const workspace = await plant(stack, 's-idle');
      await stack.ended('s-idle', 'idle');
      expect(existsSync(workspace)).toBe(false);
      await expectCanaryUntouched();
      expect(statSync(join(host, 'canary.txt')).nlink).toBe(1);
    } finally {
      await stack.close();
    }
  });

  it('--local-reset-state at the next start removes the links, never their targets', async () => {
    const stateDir = await mkdtemp('/var/tmp/cli-mcp-it-reset-');
    try {
      const first = await createSessionStack('bwrap', { network: 'none', stateDir });
      const workspace = await plant(first, 's-reset');
      await first.close();
      expect(existsSync(workspace), 'a restart keeps the workspace').toBe(true);
      const second = await createSessionStack('bwrap', { network: 'none', stateDir, resetState: true });
      try {
        expect((await second.run('s-reset', 'ls /workspace | wc -l')).response.stdout).toBe('0');
        expect(existsSync(join(workspace, 'hard-link'))).toBe(false);
        await expectCanaryUntouched();
        expect(statSync(join(host, 'canary.txt')).nlink).toBe(1);
      } finally {
        await second.close();
      }
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
