import { describe, expect, it } from 'vitest';
import { MemoryMonitor, procProcessTable, type ProcessSample } from './memory-monitor.js';

const MIB = 2 ** 20;

describe(MemoryMonitor.name, () => {
  it('sums each sandbox\'s process tree and stops the one over the bound, once, saying by how much', async () => {
    let table: Array<ProcessSample & { bytes: number }> = [
      { pid: 10, ppid: 1, bytes: 50 * MIB }, { pid: 11, ppid: 10, bytes: 30 * MIB }, { pid: 12, ppid: 11, bytes: 10 * MIB },
      { pid: 20, ppid: 1, bytes: 90 * MIB }, { pid: 99, ppid: 1, bytes: 4000 * MIB },
    ];
    const monitor = new MemoryMonitor({
      limitBytes: 100 * MIB, intervalMs: 60_000,
      table: { list: async () => table, memoryOf: async (pid) => table.find((sample) => sample.pid === pid)?.bytes ?? 0 },
    });
    const stopped: string[] = [];
    monitor.watch(10, (reason) => stopped.push(`10: ${reason}`));
    monitor.watch(20, (reason) => stopped.push(`20: ${reason}`));
    await monitor.tick();
    expect(stopped).toEqual([]);
    table = [...table, { pid: 13, ppid: 12, bytes: 60 * MIB }];
    await monitor.tick();
    await monitor.tick();
    expect(stopped).toEqual(['10: the sandbox was stopped because its processes used 150Mi of memory, 50Mi over its 100Mi bound (--local-max-memory)']);
    monitor.close();
  });

  it('reads this process, its parent and its proportional memory from /proc', async () => {
    const self = (await procProcessTable.list()).find((sample) => sample.pid === process.pid);
    expect(self).toEqual({ pid: process.pid, ppid: process.ppid });
    expect(await procProcessTable.memoryOf(process.pid)).toBeGreaterThan(10 * MIB);
    expect(await procProcessTable.memoryOf(2 ** 30)).toBe(0);
  });
});
