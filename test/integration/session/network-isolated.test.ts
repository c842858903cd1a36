/**
 * `--local-network isolated` (C-SEC-2) with real bubblewrap, slirp4netns and agents: outbound traffic works — to a
 * test host of our own, a network namespace behind a veth pair this file creates and removes — while the host's
 * loopback (where this server and every local service listen) and other sandboxes stay out of reach; the network
 * ends with its sandbox, whichever way the server goes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isAlive, processRef } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { AGENT_ENTRY, agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { descendantsOf } from './support/processes.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

const slirp = spawnSync('slirp4netns', ['--version']);
const ipNetns = spawnSync('ip', ['netns', 'list']);
const problem = agentProblem ?? bwrapProblem
  ?? (slirp.status !== 0 ? 'slirp4netns is not installed (Debian package slirp4netns)' : undefined)
  ?? (ipNetns.status !== 0 ? `ip netns does not work here: ${ipNetns.stderr}` : undefined);

const register = fileURLToPath(new URL('./support/register-ts.mjs', import.meta.url));
const parentScript = fileURLToPath(new URL('./support/orphan-parent.mjs', import.meta.url));
const ip = (...args: string[]): void => {
  const result = spawnSync('ip', args);
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr}`);
};

/** slirp4netns processes among the descendants of `pid` (this test's own processes only). */
const slirpsUnder = (pid: number): number[] =>
  descendantsOf(pid).filter((child) => spawnSync('cat', [`/proc/${child}/comm`]).stdout.toString().trim() === 'slirp4netns');

describeWhenReady('LocalBackend with --local-network isolated (bwrap, slirp4netns, real agent)', problem, () => {
  const suffix = randomBytes(3).toString('hex');
  const netns = `clilocal-${suffix}`;
  const octet = 1 + (Number.parseInt(suffix, 16) % 250);
  const hostAddr = `10.213.${octet}.1`;
  const peerAddr = `10.213.${octet}.2`;
  let echo: ChildProcess | undefined;
  let echoPort = 0;
  let loopback: Server;
  let loopbackConnections = 0;
  let stack: SessionStack;

  beforeAll(async () => {
    // The test host: its own namespace, reached from the host over a veth pair (never an outside address).
    ip('netns', 'add', netns);
    ip('link', 'add', `clh-${suffix}`, 'type', 'veth', 'peer', 'name', `clp-${suffix}`);
    ip('link', 'set', `clp-${suffix}`, 'netns', netns);
    ip('addr', 'add', `${hostAddr}/30`, 'dev', `clh-${suffix}`);
    ip('link', 'set', `clh-${suffix}`, 'up');
    ip('-n', netns, 'addr', 'add', `${peerAddr}/30`, 'dev', `clp-${suffix}`);
    ip('-n', netns, 'link', 'set', `clp-${suffix}`, 'up');
    echo = spawn('ip', ['netns', 'exec', netns, process.execPath, '-e',
      "const s=require('net').createServer(c=>c.end('echo:'+c.remoteAddress+'\\n')).listen(0,()=>console.log(s.address().port))"]);
    const [line] = (await once(createInterface({ input: echo.stdout! }), 'line')) as [string];
    echoPort = Number(line);
    loopback = createServer((socket) => (loopbackConnections++, socket.destroy()));
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    stack = await createSessionStack('bwrap', { network: 'isolated' });
  });
  afterAll(async () => {
    await stack?.close();
    echo?.kill('SIGKILL');
    await new Promise((resolve) => loopback?.close(resolve));
    spawnSync('ip', ['link', 'del', `clh-${suffix}`]);
    spawnSync('ip', ['netns', 'del', netns]);
  });

  it('reaches a host outside over slirp4netns, and resolves names through its forwarder', async () => {
    const out = await stack.run('s-out', `exec 3<>/dev/tcp/${peerAddr}/${echoPort} && cat <&3; grep nameserver /etc/resolv.conf`);
    // The test host sees the host's veth address: slirp4netns connects from the host's side.
    expect(out.response.stdout).toBe(`echo:::ffff:${hostAddr}\nnameserver 10.0.2.3`);
  });

  it('cannot reach the host loopback (this server, local services) by any address, and the connection never arrives', async () => {
    const port = (loopback.address() as { port: number }).port;
    const tries = await stack.run('s-lo', [
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; echo "lo=$?"`,
      `(timeout 5 bash -c 'exec 3<>/dev/tcp/10.0.2.2/${port}') 2>/dev/null; echo "gateway=$?"`,
      `(timeout 5 bash -c 'exec 3<>/dev/tcp/${hostAddr}/${port}') 2>/dev/null; echo "host-ip=$?"`,
    ].join('; '));
    expect(tries.response.stdout).toMatch(/^lo=1\ngateway=1\nhost-ip=(1|124)$/);
    expect(loopbackConnections).toBe(0);
  });

  it('cannot reach another sandbox\'s agent, whose socket is not in its view', async () => {
    await stack.run('s-a', 'true');
    const other = (await stack.backend.find('s-a'))!.agentUrl.slice('unix:'.length);
    const seen = await stack.run('s-b', `ls -A /.cli-mcp; [ -e ${other} ] && echo VISIBLE || echo hidden`);
    expect(seen.response.stdout).toBe('agent\nnode_modules\nhidden');
  });

  it('ends the sandbox\'s slirp4netns on DELETE', async () => {
    await stack.run('s-del', 'true');
    await vi.waitFor(() => expect(slirpsUnder(process.pid).length).toBeGreaterThan(0));
    const before = slirpsUnder(process.pid);
    await stack.manager.end('s-del', new AbortController().signal);
    await vi.waitFor(() => expect(slirpsUnder(process.pid).length).toBe(before.length - 1), { timeout: 10_000, interval: 50 });
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)('leaves no slirp4netns or sandbox process after %s of the server', async (signal) => {
    const stateDir = await mkdtemp('/var/tmp/cli-mcp-net-orphan-');
    const parent = spawn(process.execPath, ['--import', register, parentScript, stateDir, 'bwrap', AGENT_ENTRY, 'isolated'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(createInterface({ input: parent.stdout! }), 'line')) as [string];
      expect(JSON.parse(line)).toEqual({ ready: true });
      const slirps = slirpsUnder(parent.pid!);
      expect(slirps).toHaveLength(2);
      const tree = descendantsOf(parent.pid!).map(processRef);
      const exited = once(parent, 'exit');
      parent.kill(signal);
      await exited;
      await vi.waitFor(() => expect(tree.filter(isAlive)).toEqual([]), { timeout: 20_000, interval: 100 });
    } finally {
      if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
