import { describe, expect, it } from 'vitest';
import { FakeCgroupFs } from '../../test/local-fakes.js';
import { CgroupLimits, parseCgroupMounts, parseProcCgroup } from './cgroup-limits.js';

const V1_CGROUP = '9:name=systemd:/\n8:pids:/user.slice\n4:memory:/user.slice/app\n0::/\n';
const V1_MOUNTS = [
  '35 25 0:30 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '36 25 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '37 25 0:32 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

describe(CgroupLimits.name, () => {
  it('reads the v1 controllers and the v2 hierarchy of this process', () => {
    expect(parseProcCgroup(V1_CGROUP)).toEqual({ v1: new Map([['name=systemd', '/'], ['pids', '/user.slice'], ['memory', '/user.slice/app']]), v2: '/' });
    expect(parseCgroupMounts(V1_MOUNTS)).toEqual({
      v1: new Map([['pids', '/sys/fs/cgroup/pids'], ['memory', '/sys/fs/cgroup/memory']]), v2: '/sys/fs/cgroup/unified',
    });
  });

  it('makes a cgroup per sandbox under one for this server inside its own, with the limits, and removes them', async () => {
    const fs = new FakeCgroupFs({ '/proc/self/cgroup': V1_CGROUP, '/proc/self/mountinfo': V1_MOUNTS });
    const limits = new CgroupLimits({ maxProcesses: 64, maxMemoryBytes: 256 * 2 ** 20 }, fs, 4242, 'c0ffee');
    await limits.prepare();
    const sandbox = (await limits.forSandbox())!;
    expect(sandbox.procsFiles).toEqual([
      '/sys/fs/cgroup/pids/user.slice/cli-mcp-4242-c0ffee/sandbox-0/cgroup.procs',
      '/sys/fs/cgroup/memory/user.slice/app/cli-mcp-4242-c0ffee/sandbox-0/cgroup.procs',
    ]);
    expect(Object.fromEntries(fs.written)).toEqual({
      '/sys/fs/cgroup/pids/user.slice/cli-mcp-4242-c0ffee/sandbox-0/pids.max': '64',
      '/sys/fs/cgroup/memory/user.slice/app/cli-mcp-4242-c0ffee/sandbox-0/memory.limit_in_bytes': String(256 * 2 ** 20),
    });
    await sandbox.remove();
    await limits.close();
    expect(fs.dirs).toEqual(new Set());
  });

  // Issue 19: named by the pid alone, the second of these failed its mkdir (EEXIST) and its server fell back to
  // RLIMIT_NPROC, which another file's fork bomb as the same sandbox user then exhausted.
  it('gives each instance a cgroup of its own: beside another in this process, or after a killed one that had this pid', async () => {
    const fs = new FakeCgroupFs({ '/proc/self/cgroup': V1_CGROUP, '/proc/self/mountinfo': V1_MOUNTS });
    const killed = new CgroupLimits({ maxProcesses: 64 }, fs, 4242);
    await killed.prepare();
    // Never closed: what SIGKILL leaves. Then a new server gets pid 4242, and a second backend runs beside it.
    const [next, beside] = [new CgroupLimits({ maxProcesses: 64 }, fs, 4242), new CgroupLimits({ maxProcesses: 64 }, fs, 4242)];
    await next.prepare();
    await beside.prepare();
    const [one, two] = [(await next.forSandbox())!, (await beside.forSandbox())!];
    expect(one.procsFiles[0]).toMatch(/^\/sys\/fs\/cgroup\/pids\/user\.slice\/cli-mcp-4242-[0-9a-f]{8}\/sandbox-0\/cgroup\.procs$/);
    expect(new Set([...one.procsFiles, ...two.procsFiles]).size).toBe(2);
    expect(fs.dirs.size).toBe(5);
  });

  it('uses cgroup v2 (memory.max, the controller enabled for the children) where v1 has none', async () => {
    const fs = new FakeCgroupFs({ '/proc/self/cgroup': '0::/srv.slice/cli\n', '/proc/self/mountinfo': '30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw' });
    const limits = new CgroupLimits({ maxMemoryBytes: 2 ** 30 }, fs, 7, 'c0ffee');
    await limits.prepare();
    await limits.forSandbox();
    expect(Object.fromEntries(fs.written)).toEqual({
      '/sys/fs/cgroup/srv.slice/cli/cli-mcp-7-c0ffee/cgroup.subtree_control': '+memory',
      '/sys/fs/cgroup/srv.slice/cli/cli-mcp-7-c0ffee/sandbox-0/memory.max': String(2 ** 30),
    });
  });

  it('says clearly, naming the flag, when the host does not allow the limits', async () => {
    const fs = new FakeCgroupFs({ '/proc/self/cgroup': V1_CGROUP, '/proc/self/mountinfo': V1_MOUNTS });
    fs.refuseMkdir = true;
    await expect(new CgroupLimits({ maxProcesses: 64 }, fs, 1).prepare()).rejects.toThrow(
      /^--local-max-processes: cannot create a pids cgroup under \/sys\/fs\/cgroup\/pids\/user.slice \(EACCES: permission denied.*\); they need a cgroup this server may write/,
    );
    await expect(new CgroupLimits({}, fs).forSandbox()).resolves.toBeUndefined();
  });
});
