import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { never, useLocalBackend } from '../../test/local-backend-setup.js';
import { flush, FakeRunner, type FakeProcess } from '../../test/local-fakes.js';
import { UnixSocketEndpoints } from './agent-endpoint.js';
import { LocalBackend } from './local-backend.js';
import type { LocalBackendOptions } from './local-backend.options.js';

/** What the gateway answers on a sandbox's socket, as the sandbox's relay would see it. */
function ask(path: string, request = 'CONNECT other.example:443 HTTP/1.1\r\nHost: other.example:443\r\n\r\n'): Promise<{ status: number; body: Record<string, unknown> } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    socket.once('close', () => {
      if (data === '') return;
      const body = data.slice(data.indexOf('\r\n\r\n') + 4);
      resolve({ status: Number(data.split(' ')[1]), body: JSON.parse(body) as Record<string, unknown> });
    });
    socket.write(request);
  });
}

/** The host path of the gateway socket a launch mounted into its sandbox. */
function socketOf(child: FakeProcess): string {
  const args = child.spec.args;
  return args[args.indexOf('/.cli-mcp/egress/gateway.sock') - 1]!;
}

describe(`${LocalBackend.name} with --local-network proxy`, () => {
  const make = useLocalBackend();
  let dir: string;
  const audit = (): Array<Record<string, unknown>> => readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const proxy = (overrides: Partial<LocalBackendOptions> = {}) => make({
    isolation: 'bwrap', network: 'proxy', endpoints: new UnixSocketEndpoints(join(dir, 'sockets')),
    egress: { allow: ['pypi.org:443'], auditLog: join(dir, 'audit.jsonl') }, ...overrides,
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'egress-backend-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('builds a loopback-only sandbox with its own gateway socket, the proxy and CA variables and the CA files; /health lists the routes', async () => {
    const { backend, launcher, runner } = proxy();
    await backend.acquire('s1', never());
    expect(backend.posture).toMatchObject({ isolation: 'bwrap', network: 'proxy', warnings: [] });
    // No slirp4netns: proxy has no network but loopback and the socket.
    expect((runner as FakeRunner).runs.some((run) => run.startsWith('slirp4netns'))).toBe(false);
    const { spec } = launcher.launched[0]!;
    const args = spec.args.join(' ');
    expect(args).toContain('--unshare-net');
    expect(socketOf(launcher.launched[0]!)).toMatch(new RegExp(`^${dir}/sockets/[0-9a-f]{16}\\.egress\\.sock$`));
    expect(args).toMatch(/--ro-bind-data \d+ \/\.cli-mcp\/egress\/gateway-ca\.pem --ro-bind-data \d+ \/\.cli-mcp\/egress\/ca-bundle\.pem/);
    expect(spec.env).toMatchObject({
      HTTPS_PROXY: 'http://127.0.0.1:3128', https_proxy: 'http://127.0.0.1:3128', NO_PROXY: 'localhost,127.0.0.1,::1',
      SSL_CERT_FILE: '/.cli-mcp/egress/ca-bundle.pem', NODE_EXTRA_CA_CERTS: '/.cli-mcp/egress/gateway-ca.pem',
      SANDBOX_EGRESS_SOCKET: '/.cli-mcp/egress/gateway.sock', SANDBOX_EGRESS_PORT: '3128',
    });
    expect(spec.env).not.toHaveProperty('KUBECONFIG');
    expect((await backend.checkHealth()).details).toMatchObject({
      network: 'proxy', egress: { routes: ['pypi.org:443 (allow)'], audit_log: join(dir, 'audit.jsonl') },
    });
  });

  it('refuses to start without a working bubblewrap, or with --local-isolation none, naming the package', async () => {
    const broken = proxy({ isolation: 'auto', commandRunner: new FakeRunner({ bwrap: { ok: false, detail: 'No permissions to create new namespace' } }) });
    await expect(broken.backend.start()).rejects.toThrow(/--local-network=proxy .* needs bubblewrap .* not usable here: No permissions .*Debian package "bubblewrap"/);
    await broken.backend.shutdown();
    await expect(proxy({ isolation: 'none' }).backend.start()).rejects.toThrow(/needs bubblewrap .* --local-isolation=none turns it off/);
  });

  it('refuses to start when the audit file cannot be opened, naming the flag', async () => {
    const { backend } = proxy({ egress: { allow: [], auditLog: join(dir, 'no-such-dir', 'audit.jsonl') } });
    await expect(backend.start()).rejects.toThrow(`--egress-audit-log ${join(dir, 'no-such-dir', 'audit.jsonl')} cannot be opened for appending: ENOENT`);
  });

  it('attributes a sandbox\'s connections to its session; a warm sandbox\'s to nobody until it is claimed', async () => {
    const { backend, launcher, agent } = proxy({ warmPoolSize: 1 });
    agent.on('assign', async () => undefined);
    await backend.start();
    await expect.poll(() => backend.warmReady).toBe(1);
    const warm = socketOf(launcher.launched[0]!);
    expect(await ask(warm)).toMatchObject({ status: 403, body: { error: 'not_allowed', message: 'this connection belongs to no session' } });
    await backend.acquire('s1', never());
    expect(await ask(warm)).toMatchObject({ status: 403, body: { error: 'not_allowed', flag: '--egress-allow other.example:443' } });
    // The audit file is appended asynchronously: the line of the answer just read may land a moment later.
    await expect.poll(() => audit().map(({ session, reason }) => [session, reason]), { timeout: 10_000 }).toEqual([['', 'not_allowed'], ['s1', 'not_allowed']]);
  });

  it('DELETE cuts the session\'s egress before the agent\'s stop grace; the id is served again by its next sandbox', async () => {
    const { backend, launcher, clock } = proxy();
    await backend.acquire('s1', never());
    const child = launcher.launched[0]!;
    child.exitsOnTerm = false;
    const path = socketOf(child);
    const open: Socket = connect({ path });
    const cut = new Promise<void>((resolve) => open.once('close', () => resolve()));
    open.on('error', () => undefined);
    await new Promise((resolve) => open.once('connect', resolve));
    const ending = backend.end('s1');
    await cut;
    // The agent still runs (it ignores SIGTERM for now), but its sandbox's egress is gone.
    expect(child.hasExited).toBe(false);
    expect(await ask(path)).toEqual({ error: expect.stringMatching(/ENOENT|ECONNREFUSED/) });
    clock.advance(5_000);
    await ending;
    await backend.acquire('s1', never());
    expect(await ask(socketOf(launcher.launched[1]!))).toMatchObject({ status: 403, body: { error: 'not_allowed' } });
  });

  it('the idle reap ends the session\'s egress too; shutdown closes every socket and the audit file', async () => {
    const { backend, launcher, clock } = proxy({ idleTimeoutMs: 60_000 });
    await backend.acquire('s1', never());
    await backend.acquire('s2', never());
    const [one, two] = launcher.launched.map(socketOf);
    launcher.launched[0]!.exitsOnTerm = false;
    clock.advance(60_000);
    await flush(50);
    await expect.poll(() => ask(one!)).toEqual({ error: expect.stringMatching(/ENOENT|ECONNREFUSED/) });
    // Cut before the reaped agent is gone (it ignores SIGTERM until the grace is over).
    expect(launcher.launched[0]!.hasExited).toBe(false);
    clock.advance(5_000);
    await backend.acquire('s3', never());
    await backend.shutdown();
    expect(await ask(two!)).toEqual({ error: expect.stringMatching(/ENOENT|ECONNREFUSED/) });
  });
});
