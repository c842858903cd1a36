import { describe, expect, it } from 'vitest';
import { FakeCgroupFs, FakeRunner } from '../../../test/local-fakes.js';
import { planBounds, scopeArgs } from './bounds-plan.js';
import { resolveBounds } from './sandbox-bounds.js';

const CGROUP = { '/proc/self/cgroup': '8:pids:/\n4:memory:/app\n0::/\n', '/proc/self/mountinfo': [
  '35 25 0:30 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids',
  '36 25 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory',
].join('\n') };
const bounds = resolveBounds({}, 16 * 2 ** 30);
const spec = { command: 'bwrap', args: ['--a'], env: {}, cwd: '/w', extraFds: [] };
const NO_SCOPE = { 'systemd-run': { ok: false, detail: 'Failed to connect to bus: No medium found' } };

describe(planBounds.name, () => {
  it('takes a systemd user scope where one can be had, with the bounds as unit properties', async () => {
    const runner = new FakeRunner();
    const plan = await planBounds({ bounds, runner, cgroupFs: new FakeCgroupFs(CGROUP) });
    expect(plan.layer).toBe('systemd-scope');
    expect(runner.runs[0]).toBe(`systemd-run ${scopeArgs(bounds).join(' ')} -- true`);
    expect(scopeArgs(bounds)).toEqual(['--user', '--scope', '--quiet', '--collect', '-p', 'TasksMax=1024', '-p', 'MemoryMax=2147483648', '-p', 'MemorySwapMax=0']);
    expect(plan.wrap(spec)).toMatchObject({
      command: 'systemd-run', args: [...scopeArgs(bounds), '--', 'prlimit', `--fsize=${4 * 2 ** 30}`, '--', 'bwrap', '--a'],
    });
    expect(plan.report).toMatchObject({ tasks: '1024 (systemd-scope)', memory: '2Gi (systemd-scope)' });
    expect(plan.warnings).toEqual([]);
  });

  it('falls back to the writable cgroupfs when no user manager answers', async () => {
    const fs = new FakeCgroupFs(CGROUP);
    const plan = await planBounds({ bounds, runner: new FakeRunner(NO_SCOPE), cgroupFs: fs });
    expect(plan.layer).toBe('cgroupfs');
    expect(plan.cgroups).toBeDefined();
    expect([...fs.dirs]).toEqual([
      expect.stringMatching(new RegExp(`^/sys/fs/cgroup/pids/cli-mcp-${process.pid}-[0-9a-f]{8}$`)),
      expect.stringMatching(new RegExp(`^/sys/fs/cgroup/memory/app/cli-mcp-${process.pid}-[0-9a-f]{8}$`)),
    ]);
    expect(plan.wrap(spec)).toMatchObject({ command: 'prlimit', args: [`--fsize=${4 * 2 ** 30}`, '--', 'bwrap', '--a'] });
    expect(plan.report).toMatchObject({ tasks: '1024 (cgroupfs)', tmp: '/tmp 1Gi, /var/tmp 512Mi, /run 64Mi (tmpfs size, counted in memory too)' });
    await plan.cgroups?.close();
  });

  it('falls back to RLIMIT_NPROC and says loudly that memory is not bounded, when neither cgroup layer works', async () => {
    const fs = new FakeCgroupFs(CGROUP);
    fs.refuseMkdir = true;
    const plan = await planBounds({ bounds, runner: new FakeRunner(NO_SCOPE), cgroupFs: fs });
    expect(plan.layer).toBe('rlimit');
    expect(plan.wrap(spec)).toMatchObject({ command: 'prlimit', args: ['--nproc=1024', `--fsize=${4 * 2 ** 30}`, '--', 'bwrap', '--a'] });
    expect(plan.report).toMatchObject({ tasks: '1024 (rlimit RLIMIT_NPROC)', memory: '2Gi (monitored every 500 ms)' });
    expect(plan.warnings).toEqual([
      expect.stringMatching(/tasks are bounded only by RLIMIT_NPROC \(1024\).*No medium found.*EACCES/),
      expect.stringMatching(/memory is bounded only by monitoring .*every 500 ms/),
    ]);
  });

  it('probes nothing and adds nothing when every bound is off', async () => {
    const runner = new FakeRunner();
    const plan = await planBounds({ bounds: resolveBounds({ maxProcesses: 'off', maxMemoryBytes: 'off', maxDiskBytes: 'off', maxOutputBytes: 'off' }), runner });
    expect(runner.runs).toEqual([]);
    expect(plan.layer).toBeUndefined();
    expect(plan.wrap(spec)).toBe(spec);
    expect(plan.report).toEqual({ tasks: 'off', memory: 'off', tmp: expect.stringMatching(/^off/), disk: 'off', output: expect.stringMatching(/^off/) });
  });

  it('warns, rather than fails every sandbox, when prlimit is missing', async () => {
    const plan = await planBounds({ bounds: resolveBounds({ maxProcesses: 'off', maxMemoryBytes: 'off' }), runner: new FakeRunner({ prlimit: { ok: false, detail: 'spawn prlimit ENOENT' } }) });
    expect(plan.wrap(spec)).toBe(spec);
    expect(plan.warnings).toEqual([expect.stringMatching(/no rlimits \(--fsize=4294967296\): prlimit is not usable \(spawn prlimit ENOENT\)/)]);
  });
});
