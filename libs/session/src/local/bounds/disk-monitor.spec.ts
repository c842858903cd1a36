import { link, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskMonitor, overLimitReason } from './disk-monitor.js';
import { diskWalker, walkDiskUsage } from './disk-usage.js';

const MIB = 2 ** 20;

/** A monitor over scripted measurements and a hand-driven timer. */
function monitorOf(sizes: number[]) {
  const ticks: Array<() => void> = [];
  let cleared = 0;
  const usage = async (): Promise<number> => sizes.shift() ?? 0;
  const monitor = new DiskMonitor({
    limitBytes: 100 * MIB, intervalMs: 1_000, usage,
    setInterval: (callback) => (ticks.push(callback), {}), clearInterval: () => void cleared++,
  });
  const tick = async (): Promise<void> => {
    ticks.forEach((callback) => callback());
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { monitor, tick, cleared: () => cleared };
}

describe(DiskMonitor.name, () => {
  it('stops a sandbox whose workspace grows past the bound, once, saying by how much', async () => {
    const { monitor, tick, cleared } = monitorOf([10 * MIB, 90 * MIB, 150 * MIB, 200 * MIB]);
    const reasons: string[] = [];
    monitor.watch('/w', (reason) => reasons.push(reason));
    await tick();
    expect(reasons).toEqual([]);
    await tick();
    await tick();
    expect(reasons).toEqual([overLimitReason(150 * MIB, 100 * MIB)]);
    expect(reasons[0]).toBe('the sandbox was stopped because /workspace used 150Mi, 50Mi over its 100Mi bound (--local-max-disk); delete files to get below it');
    expect(cleared()).toBe(1);
  });

  it('leaves a workspace that is over the bound but not growing usable, so the session can delete files', async () => {
    const { monitor, tick } = monitorOf([150 * MIB, 150 * MIB, 120 * MIB, 50 * MIB]);
    const reasons: string[] = [];
    const unwatch = monitor.watch('/w', (reason) => reasons.push(reason));
    for (let i = 0; i < 3; i++) await tick();
    expect(reasons).toEqual([]);
    unwatch();
  });
});

describe('walkDiskUsage', () => {
  it('counts allocated blocks once per inode and never follows links', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'disk-usage-'));
    try {
      const empty = await walkDiskUsage(dir);
      await mkdir(join(dir, 'sub'));
      await writeFile(join(dir, 'sub', 'a'), Buffer.alloc(MIB, 1));
      const withFile = await walkDiskUsage(dir);
      expect(withFile - empty).toBeGreaterThanOrEqual(MIB);
      // A hard link and a symlink to a large host file cost (almost) nothing more.
      await link(join(dir, 'sub', 'a'), join(dir, 'hard'));
      await symlink('/usr', join(dir, 'usr-link'));
      expect(await walkDiskUsage(dir) - withFile).toBeLessThan(64 * 1024);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is not led into a host directory by a directory swapped for a symlink after the walk saw it (issue 22)', async () => {
    const top = await mkdtemp(join(tmpdir(), 'disk-usage-race-'));
    const [dir, host] = [join(top, 'workspace'), join(top, 'host')];
    try {
      await mkdir(join(dir, 'sub'), { recursive: true });
      await mkdir(host);
      await writeFile(join(host, 'big'), Buffer.alloc(4 * MIB, 1));
      const before = await walkDiskUsage(dir);
      // The sandbox's move, in the window between the walk's lstat of `sub` (a directory) and its listing.
      const racing = diskWalker(async (path) => {
        if (path !== join(dir, 'sub')) return;
        await rename(path, join(dir, 'moved'));
        await symlink(host, path);
      });
      expect(await racing(dir) - before).toBeLessThan(MIB);
    } finally {
      await rm(top, { recursive: true, force: true });
    }
  });
});
