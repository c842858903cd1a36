import { describe, expect, it } from 'vitest';
import { never, useLocalBackend } from '../../test/local-backend-setup.js';
import { FakeRunner, flush } from '../../test/local-fakes.js';
import { LocalBackend } from './local-backend.js';

const GIB = 2 ** 30;
const DEFAULTS = { maxProcesses: undefined, maxMemoryBytes: undefined, maxDiskBytes: undefined, maxOutputBytes: undefined, hostMemoryBytes: 16 * GIB };

describe(`${LocalBackend.name} bounds (issue 22)`, () => {
  const make = useLocalBackend();

  it('bounds every sandbox by default, and /health says each bound and its layer', async () => {
    const logged: Array<[string, Record<string, unknown> | undefined]> = [];
    const { backend, launcher } = make({
      ...DEFAULTS, isolation: 'bwrap', network: 'none', logger: { info: (message, fields) => logged.push([message, fields]), warn: () => undefined },
    });
    await backend.acquire('s1', never());
    // The start-up log says each bound and how it is enforced.
    expect(logged).toContainEqual(['local sandbox bounds', expect.objectContaining({ tasks: '1024 (systemd-scope)', disk: expect.stringMatching(/^4Gi/) })]);
    const spec = launcher.launched[0]!.spec;
    expect(spec.command).toBe('systemd-run');
    expect(spec.args.slice(0, 10)).toEqual(['--user', '--scope', '--quiet', '--collect', '-p', 'TasksMax=1024', '-p', `MemoryMax=${2 * GIB}`, '-p', 'MemorySwapMax=0']);
    expect(spec.args.join(' ')).toContain(`--size ${GIB} --tmpfs /tmp --dir /var --size ${GIB / 2} --tmpfs /var/tmp --size ${64 * 2 ** 20} --tmpfs /run`);
    // Saved outputs: a quarter per stream, half kept, so the two of the running command fit too.
    expect(spec.env).toMatchObject({ SANDBOX_SPILL_MAX_FILE_BYTES: String(64 * 2 ** 20 - 1024), SANDBOX_SPILL_MAX_TOTAL_BYTES: String(128 * 2 ** 20) });
    const health = await backend.checkHealth();
    expect(health.details).toMatchObject({
      bounds: { tasks: '1024 (systemd-scope)', memory: '2Gi (systemd-scope)', disk: expect.stringMatching(/^4Gi \(monitored/), output: '256Mi (agent retention)' },
    });
    expect(health.details).not.toHaveProperty('warnings');
  });

  it('shows a weaker layer in /health warnings and the start-up log', async () => {
    const runner = new FakeRunner({ 'systemd-run': { ok: false, detail: 'Failed to connect to bus' } });
    const { backend, warnings } = make({
      ...DEFAULTS, isolation: 'bwrap', network: 'none', commandRunner: runner,
      cgroupFs: { readText: async () => '', writeText: async () => undefined, mkdir: async () => undefined, rmdir: async () => undefined },
    });
    await backend.start();
    expect(warnings).toEqual([expect.stringContaining('RLIMIT_NPROC (1024)'), expect.stringContaining('memory is bounded only by monitoring')]);
    expect((await backend.checkHealth()).details).toMatchObject({ bounds: { tasks: '1024 (rlimit RLIMIT_NPROC)' }, warnings });
  });

  it('starts bubblewrap sandboxes with unsized tmpfs, saying so, where bubblewrap has no --size (0.6)', async () => {
    const runner = new FakeRunner();
    const old = { run: async (command: string, args: string[]) => (args.includes('--size') && args.includes('--version')
      ? { ok: false, detail: 'bwrap: Unknown option --size' } : runner.run(command, args)) };
    const { backend, launcher, warnings } = make({ ...DEFAULTS, isolation: 'bwrap', network: 'none', commandRunner: old });
    await backend.acquire('s1', never());
    expect(backend.isolation).toBe('bwrap');
    expect(launcher.launched[0]!.spec.args).not.toContain('--size');
    expect(warnings).toEqual([expect.stringContaining('this bubblewrap has no --size (bwrap: Unknown option --size)')]);
    expect((await backend.checkHealth()).details).toMatchObject({ bounds: { tmp: 'off (this bubblewrap has no --size)' }, warnings });
  });

  it('stops a sandbox whose workspace grows past --local-max-disk; the next command says why and by how much, files kept', async () => {
    const sizes = [0, 3 * GIB, 5 * GIB];
    const { backend, launcher } = make({
      maxDiskBytes: 4 * GIB, diskCheckIntervalMs: 1, diskUsage: async () => sizes.shift() ?? 0,
    });
    await backend.acquire('s1', never());
    const first = launcher.launched[0]!;
    for (let i = 0; i < 50 && !first.hasExited; i++) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(first.signals).toEqual(['SIGKILL']);
    await flush();
    const next = await backend.acquire('s1', never());
    expect(next).toMatchObject({ recreated: true, lost: { shellState: true, files: false, reason: expect.stringContaining('used 5Gi, 1Gi over its 4Gi bound (--local-max-disk)') } });
    expect(launcher.launched).toHaveLength(2);
  });
});
