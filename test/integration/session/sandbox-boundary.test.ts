/**
 * C-SEC-1 and C-SEC-3 attacked the way a hostile command would: with real bubblewrap and the real agent, a
 * sandbox tries host sockets (a runtime dir under /run, the checkout, the abstract namespace), private paths and
 * the namespaces it should not have. Each listener is proved reachable from the host first.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentProblem, bwrapProblem, REPO_ROOT } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem;

interface Listener {
  server: Server;
  connections: number;
}

async function listen(path: string): Promise<Listener> {
  const listener: Listener = { server: createServer((socket) => (listener.connections++, socket.end('hello\n'))), connections: 0 };
  await new Promise<void>((resolve, reject) => listener.server.once('error', reject).listen(path, resolve));
  return listener;
}

/** Connects like a client would; resolves with what the listener said. */
async function hostConnect(path: string): Promise<string> {
  const { connect } = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString())).on('end', () => resolve(text)).on('error', reject);
  });
}

describeWhenReady('a bubblewrap sandbox cannot reach the host (C-SEC-1, C-SEC-3)', problem, () => {
  const tag = `cli-mcp-it-${process.pid}-${randomBytes(3).toString('hex')}`;
  const paths = { run: `/run/${tag}.sock`, checkout: join(REPO_ROOT, `.${tag}.sock`), abstract: `\0${tag}` };
  const listeners: Listener[] = [];
  let stack: SessionStack;
  let secretDir: string;

  beforeAll(async () => {
    for (const path of Object.values(paths)) listeners.push(await listen(path));
    secretDir = await mkdtemp('/var/tmp/cli-mcp-it-secret-');
    await writeFile(join(secretDir, 'hmac.key'), 'key material');
    stack = await createSessionStack('bwrap', { network: 'isolated', secretPaths: [join(secretDir, 'hmac.key')] });
    await writeFile(join(stack.stateDir, 'hmac.key'), 'state key');
  });
  afterAll(async () => {
    await stack?.close();
    await Promise.all(listeners.map((l) => new Promise((resolve) => l.server.close(resolve))));
    await rm(secretDir, { recursive: true, force: true });
  });

  it('cannot connect to host Unix sockets in /run, under the checkout or in the abstract namespace', async () => {
    for (const path of Object.values(paths)) expect(await hostConnect(path)).toBe('hello\n');
    const before = listeners.map((l) => l.connections);
    const tries = await stack.run('s-sock', [
      `curl -s --max-time 3 --unix-socket ${paths.run} http://x/; echo "run=$?"`,
      `curl -s --max-time 3 --unix-socket ${paths.checkout} http://x/; echo "checkout=$?"`,
      `curl -s --max-time 3 --abstract-unix-socket ${tag} http://x/; echo "abstract=$?"`,
    ].join('; '));
    // curl 7: could not connect.
    expect(tries.response.stdout).toBe('run=7\ncheckout=7\nabstract=7');
    expect(listeners.map((l) => l.connections)).toEqual(before);
  });

  it('sees only the documented system paths: no /home, /root, /run of the host, checkout or state dir', async () => {
    const seen = await stack.run('s-paths', [
      `for p in /home /root /srv /mnt /media ${homedir()} ${REPO_ROOT} ${stack.stateDir} ${secretDir}; do [ -e "$p" ] && echo "VISIBLE $p"; done`,
      'echo "run: $(ls -A /run | wc -l)"', 'echo "var: $(ls -A /var)"', 'echo "cli-mcp: $(ls /.cli-mcp | tr "\\n" " ")"', 'ls -A /',
    ].join('; '));
    const [run, variable, own, ...root] = seen.response.stdout.split('\n');
    expect([run, variable, own]).toEqual(['run: 0', 'var: tmp', 'cli-mcp: agent node_modules ']);
    const allowed = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'opt', 'dev', 'proc', 'tmp', 'var', 'run', 'workspace', '.cli-mcp'];
    expect(root.filter((entry) => !allowed.includes(entry))).toEqual([]);
  });

  it('keeps the tools in /usr working, and tty mode (node-pty, loaded lazily) too', async () => {
    const tools = await stack.run('s-tools', 'bash --version | head -1; ls /usr/bin/env; curl --version | head -c 5; echo; printf x | sha256sum | cut -c1-8');
    expect(tools.response.stdout).toMatch(/^GNU bash, version .*\n\/usr\/bin\/env\ncurl \n2d711642$/);
    const tty = await stack.manager.execute('s-tools', { command: 'test -t 1 && echo terminal', tty: true, timeout: 20 }, new AbortController().signal);
    expect(tty.response).toMatchObject({ exit_code: 0, stdout: 'terminal' });
  });

  it('runs as an unprivileged user with no capabilities, no nested user namespaces and its own namespaces', async () => {
    const root = process.getuid?.() === 0;
    const probe = await stack.run('s-ns', [
      'id -u', 'grep CapEff /proc/self/status', 'cat /etc/shadow >/dev/null 2>&1 && echo shadow-readable || echo shadow-denied',
      'unshare -U true 2>/dev/null && echo nested-userns || echo no-nested-userns', 'hostname',
      'readlink /proc/self/ns/cgroup /proc/self/ns/pid /proc/self/ns/ipc /proc/self/ns/uts /proc/self/ns/net',
      'ps -e --no-headers | wc -l',
    ].join('; '));
    const lines = probe.response.stdout.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      root ? '65534' : String(process.getuid?.()), 'CapEff:\t0000000000000000', 'shadow-denied', 'no-nested-userns', 'cli-mcp-sandbox',
    ]);
    const host = ['cgroup', 'pid', 'ipc', 'uts', 'net'].map((ns) => readlinkSync(`/proc/self/ns/${ns}`));
    lines.slice(5, 10).forEach((ns, index) => expect(ns).not.toBe(host[index]));
    expect(Number(lines[10])).toBeLessThan(10);
  });

  it('cannot write outside /workspace and its private dirs', async () => {
    const writes = await stack.run('s-ro', [
      'touch /etc/x 2>&1 || true', 'touch /usr/x 2>&1 || true', 'touch /x 2>&1 || true', 'touch /.cli-mcp/agent/x 2>&1 || true',
      'touch /workspace/ok /tmp/ok /var/tmp/ok /run/ok && echo writable',
    ].join('; '));
    const out = writes.response.stdout.split('\n');
    expect(out.slice(0, 4).every((line) => /Read-only file system|Permission denied/.test(line))).toBe(true);
    expect(out[4]).toBe('writable');
  });
});

describeWhenReady('a bubblewrap sandbox with --local-network host', problem, () => {
  it('shares the host network, as documented and warned about, and gets the host\'s resolv.conf', async () => {
    const listener = await new Promise<Server>((resolve) => {
      const server = createServer((socket) => socket.end('host\n'));
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
    const stack = await createSessionStack('bwrap', { network: 'host' });
    try {
      await stack.backend.start();
      expect(stack.backend.posture).toMatchObject({ network: 'host', warnings: [expect.stringContaining('share the host network')] });
      const port = (listener.address() as { port: number }).port;
      const seen = await stack.run('s-host', `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3; cat /etc/resolv.conf`);
      expect(seen.response.stdout).toBe(`host\n${readFileSync('/etc/resolv.conf', 'utf8').trimEnd()}`);
      // Issue 11: only the server → agent hop changed — a Unix socket, no TCP port; issue 22: one the server
      // bound outside the sandbox, which the agent inherited.
      const handle = (await stack.backend.find('s-host'))!;
      expect(handle.agentUrl).toMatch(/^unix:\/.*\/sockets\/[0-9a-f]{16}\.sock$/);
      expect((await stack.run('s-host', 'ls -A /.cli-mcp')).response.stdout).toBe('agent\nnode_modules');
    } finally {
      await stack.close();
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
