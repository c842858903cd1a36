import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ChildrenFile, groupHasStopped, readProcEntry } from './proc-table.js';
import { processKey } from './process-tree.js';

/** A real bash with two background sleeps; its stdout says when both run and when the short one is gone. */
async function shellWithJobs(): Promise<{ shell: ChildProcess; lines: AsyncIterator<string> }> {
  const shell = spawn('bash', ['-c', 'sleep 30 & sleep 30 & echo two; read; kill %1; wait %1; echo one; read'], {
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true, // its own process group: the test's cleanup kills the sleeps with it
  });
  shell.stdout!.setEncoding('utf8');
  const lines = (async function* () {
    for await (const chunk of shell.stdout!) yield* String(chunk).trim().split('\n');
  })();
  return { shell, lines };
}

describe('ChildrenFile', () => {
  let shell: ChildProcess | undefined;
  afterEach(async () => {
    if (!shell) return;
    const running = shell.exitCode === null && shell.signalCode === null;
    try {
      process.kill(-shell.pid!, 'SIGKILL');
    } catch {
      // The group is already empty.
    }
    if (running) await once(shell, 'exit');
    shell = undefined;
  });

  /** The shell of `shellWithJobs`, once both jobs run, and a ChildrenFile on it (closed after the test). */
  async function twoJobs(): Promise<{ lines: AsyncIterator<string>; children: ChildrenFile }> {
    const started = await shellWithJobs();
    shell = started.shell;
    expect((await started.lines.next()).value).toBe('two');
    children = new ChildrenFile(shell.pid!);
    return { lines: started.lines, children };
  }
  let children: ChildrenFile | undefined;
  afterEach(() => children?.close());

  it('re-reads the same open file and sees children come and go (procfs regenerates it at offset 0)', async () => {
    const { lines, children } = await twoJobs();
    const before = children.snapshot();
    expect(before.size).toBe(2);
    shell!.stdin!.write('\n');
    expect((await lines.next()).value).toBe('one');
    const after = children.snapshot();
    expect(after.size).toBe(1);
    expect([...after].every((key) => before.has(key))).toBe(true);
  });

  it('keys are processKey of each child (pid + start time), so a reused pid is not an earlier job', async () => {
    const { children } = await twoJobs();
    const [first] = [...children.snapshot()];
    const pid = Number(first!.split(':')[0]);
    expect(first).toBe(processKey(readProcEntry(pid)!));
  });

  it('gives no children once the process is gone', async () => {
    const { children } = await twoJobs();
    expect(children.snapshot().size).toBe(2);
    shell!.kill('SIGKILL');
    await once(shell!, 'exit');
    expect(children.snapshot().size).toBe(0);
  });
});

describe(groupHasStopped.name, () => {
  it('tells a process group with a stopped member from a running one (C-MCP-11)', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
    try {
      const pgid = child.pid!;
      expect(groupHasStopped(pgid)).toBe(false);
      process.kill(-pgid, 'SIGSTOP');
      await expect.poll(() => groupHasStopped(pgid)).toBe(true);
      process.kill(-pgid, 'SIGCONT');
      await expect.poll(() => groupHasStopped(pgid)).toBe(false);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
  });
});
