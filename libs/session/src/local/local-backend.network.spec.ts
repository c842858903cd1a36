import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { FakeClock, StrictLocalAgent } from '../../test/fakes.js';
import { FakeHostFs, FakeLauncher, FakeRunner, FakeWorkspaces } from '../../test/local-fakes.js';
import { UnixSocketEndpoints } from './agent-endpoint.js';
import { LocalBackend } from './local-backend.js';
import { splitLocalOptions } from '../../test/split-local-options.js';
import type { LocalBackendOptions } from './local-backend.options.js';

const never = () => new AbortController().signal;
let dir = '';
let backend: LocalBackend | undefined;

/** The agent bundle this spec names is there. */
function withAgent(hostFs: FakeHostFs): FakeHostFs {
  hostFs.files.add('/repo/dist/sandbox-agent/main.js');
  return hostFs;
}

function make(overrides: Partial<LocalBackendOptions> = {}) {
  dir = mkdtempSync(join(tmpdir(), 'net-none-'));
  const launcher = new FakeLauncher();
  const runner = new FakeRunner();
  backend = new LocalBackend(...splitLocalOptions({
    stateDir: '/state', hmacKey: Buffer.from('k'.repeat(32)), agentEntry: '/repo/dist/sandbox-agent/main.js', nodePath: '/usr/bin/node',
    isolation: 'auto', network: 'none', sandboxUser: 'server', hostEnv: {}, clock: new FakeClock(), launcher, commandRunner: runner,
    agent: new StrictLocalAgent().on('health', async () => ({ status: 'ok', assigned: true, busy: false })),
    workspaces: new FakeWorkspaces(), hostFs: withAgent(new FakeHostFs()), endpoints: new UnixSocketEndpoints(join(dir, 'sockets')),
    maxProcesses: 'off', maxMemoryBytes: 'off', maxDiskBytes: 'off', maxOutputBytes: 'off',
    ...overrides,
  }));
  return { backend, launcher, runner };
}

afterEach(async () => {
  await backend?.shutdown();
  backend = undefined;
  // Not every test makes a directory: whatever ran before, this one removes only its own.
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('LocalBackend with --local-network none', () => {
  it('runs each agent in its own network namespace, on a socket the server bound outside every sandbox (issue 22)', async () => {
    const { backend, launcher, runner } = make();
    const handle = await backend.acquire('s1', never());
    expect(runner.runs[0]).toContain('--unshare-net');
    const spec = launcher.launched[0]!.spec;
    const args = spec.args.join(' ');
    expect(args).toContain('--unshare-net');
    expect(statSync(join(dir, 'sockets')).mode & 0o777).toBe(0o700);
    const sockets = readdirSync(join(dir, 'sockets'));
    expect(sockets).toEqual([expect.stringMatching(/^[0-9a-f]{16}\.sock$/)]);
    expect(statSync(join(dir, 'sockets', sockets[0]!)).isSocket()).toBe(true);
    // Nothing of the socket directory is mounted into the sandbox; the agent gets the socket as fd 4.
    expect(args).not.toContain(join(dir, 'sockets'));
    expect(args).not.toContain('/.cli-mcp/socket');
    expect(spec.extraFds?.[0]).toMatchObject({ kind: 'inherit', fd: expect.any(Number) });
    expect(spec.env).toMatchObject({ SANDBOX_AGENT_LISTEN_FD: '4' });
    expect(spec.env).not.toHaveProperty('SANDBOX_AGENT_SOCKET');
    expect(handle.agentUrl).toBe(`unix:${join(dir, 'sockets', sockets[0]!)}`);
  });

  it('removes the socket once the agent is gone', async () => {
    const { backend } = make();
    await backend.acquire('s1', never());
    const [socket] = readdirSync(join(dir, 'sockets'));
    await backend.end('s1');
    await expect.poll(() => existsSync(join(dir, 'sockets', socket!))).toBe(false);
  });

  it('refuses to start when bubblewrap is not usable, instead of running sandboxes with the network', async () => {
    const { backend, launcher } = make({ commandRunner: new FakeRunner({ bwrap: { ok: false, detail: 'No permissions to create new namespace' } }) });
    await expect(backend.start()).rejects.toThrow(/--local-network=none needs bubblewrap isolation, which is not usable here: No permissions/);
    expect(launcher.launched).toHaveLength(0);
  });
});

describe(UnixSocketEndpoints.name, () => {
  it('puts sockets in a private temp directory when the state dir is too long for 107-byte socket paths', async () => {
    dir = mkdtempSync(join(tmpdir(), 'net-long-'));
    const endpoints = new UnixSocketEndpoints(`/${'d'.repeat(80)}/sockets`, () => dir);
    await endpoints.prepare();
    const made = readdirSync(dir);
    expect(made).toEqual([expect.stringMatching(/^cli-mcp-/)]);
    const endpoint = await endpoints.allocate();
    const url = endpoint.urlFor('unix')!;
    expect(url.startsWith(`unix:${join(dir, made[0]!)}/`)).toBe(true);
    expect(Buffer.byteLength(url.slice('unix:'.length))).toBeLessThanOrEqual(107);
    await endpoint.release();
    await endpoints.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('falls back to /tmp when the temp directory itself is too long', async () => {
    const endpoints = new UnixSocketEndpoints(`/${'d'.repeat(80)}/sockets`, () => `/${'t'.repeat(100)}`);
    await endpoints.prepare();
    const endpoint = await endpoints.allocate();
    const url = endpoint.urlFor('unix')!;
    expect(url).toMatch(/^unix:\/tmp\/cli-mcp-[^/]+\/[0-9a-f]{16}\.sock$/);
    await endpoint.release();
    await endpoints.close();
    expect(existsSync(join(url.slice('unix:'.length), '..'))).toBe(false);
  });

  it('clears sockets an earlier server left, and maps only the "unix" ready line to a URL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'net-none-'));
    const endpoints = new UnixSocketEndpoints(join(dir, 'sockets'));
    await endpoints.prepare();
    const stale = await endpoints.allocate();
    await endpoints.prepare();
    expect(readdirSync(join(dir, 'sockets'))).toEqual([]);
    const endpoint = await endpoints.allocate();
    expect(endpoint.urlFor('8090')).toBeUndefined();
    expect(endpoint.urlFor('unix')).toMatch(/^unix:\/.*\/sockets\/[0-9a-f]{16}\.sock$/);
    await Promise.all([stale.release(), endpoint.release()]);
  });
});

// Issue 11: every local agent is reached over a Unix socket, also where the sandbox shares the host network.
describe('LocalBackend with --local-network host', () => {
  const stateDirForTest = (): string => {
    const stateDir = mkdtempSync(join(tmpdir(), 'net-host-'));
    onTestFinished(() => rmSync(stateDir, { recursive: true, force: true }));
    return stateDir;
  };

  it('bubblewrap: the agent inherits a socket the server bound; the sandbox keeps the host network', async () => {
    const stateDir = stateDirForTest();
    const { backend, launcher, runner } = make({ isolation: 'bwrap', network: 'host', endpoints: undefined, workspaces: new FakeWorkspaces(stateDir) });
    const handle = await backend.acquire('s1', never());
    const spec = launcher.launched[0]!.spec;
    expect(runner.runs[0]).not.toContain('--unshare-net');
    expect(spec.args.join(' ')).not.toContain('--unshare-net');
    expect(spec.args.join(' ')).not.toContain(`${stateDir}/sockets`);
    expect(spec.env.SANDBOX_AGENT_LISTEN_FD).toBe('4');
    expect(handle.agentUrl).toMatch(new RegExp(`^unix:${stateDir}/sockets/[0-9a-f]{16}\\.sock$`));
  });

  it('without isolation: the same inherited socket', async () => {
    const stateDir = stateDirForTest();
    const { backend, launcher } = make({ isolation: 'none', network: 'host', endpoints: undefined, workspaces: new FakeWorkspaces(stateDir) });
    const handle = await backend.acquire('s1', never());
    expect(launcher.launched[0]!.spec).toMatchObject({ env: { SANDBOX_AGENT_LISTEN_FD: '4' }, extraFds: [{ kind: 'inherit' }, { kind: 'data' }] });
    expect(handle.agentUrl).toMatch(new RegExp(`^unix:${stateDir}/sockets/[0-9a-f]{16}\\.sock$`));
  });
});
