import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasExited, isAlive, processRef, processRefFromStat, signalProcess } from './process-ref.js';

const exited = (child: ReturnType<typeof spawn>) => new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe('processRef', () => {
  it('a running process is alive until it exits; then it is never signalled', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const ref = processRef(child.pid!);
    expect(ref.startTime).toMatch(/^\d+$/);
    expect(isAlive(ref)).toBe(true);
    const gone = exited(child);
    expect(signalProcess(ref, 'SIGKILL')).toBe(true);
    await gone;
    expect(isAlive(ref)).toBe(false);
    expect(signalProcess(ref, 'SIGKILL')).toBe(false);
  });

  it('a pid now held by a newer process reads as gone and is not signalled', () => {
    // This test process stands in for "the newer process": same pid, another start time.
    const recycled = { pid: process.pid, startTime: String(Number(processRef(process.pid).startTime) - 1) };
    expect(isAlive(recycled)).toBe(false);
    expect(signalProcess(recycled, 'SIGKILL')).toBe(false);
    expect(isAlive(processRef(process.pid))).toBe(true);
  });

  it('a pid that runs nothing was never alive', () => {
    expect(processRef(2 ** 22 + 1)).toEqual({ pid: 2 ** 22 + 1, startTime: undefined });
    expect(isAlive(processRef(0))).toBe(false);
  });

  it('reads a stat line whose comm holds spaces and parentheses', () => {
    const own = processRef(process.pid);
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const tricky = stat.replace(/\(.*\)/, '(a b) (c))');
    expect(processRefFromStat(tricky)).toEqual(own);
    expect(() => processRefFromStat('garbage')).toThrow(/not a \/proc\/<pid>\/stat line/);
  });

  it('counts a reaped task still listed (X, x) as exited, like a zombie; every other state as running', () => {
    expect(['Z', 'X', 'x'].map(hasExited)).toEqual([true, true, true]);
    expect(['R', 'S', 'D', 'T', 't', 'I'].map(hasExited)).toEqual([false, false, false, false, false, false]);
  });
});
