/**
 * `--local-network none` with real bubblewrap and the real agent: each sandbox has its own empty network
 * namespace and its agent is reached over a Unix socket (docs/local-backend.md "Network").
 */
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { isAlive, processRef, signalProcess } from '@cli-mcp/testing';
import { afterEach, expect, it } from 'vitest';
import { agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { pidOf } from './support/processes.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem;

describeWhenReady('LocalBackend with --local-network none (bwrap, real agent)', problem, () => {
  let stack: SessionStack | undefined;
  let listener: Server | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
    await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
    listener = undefined;
  });
  const sockets = () => readdirSync(join(stack!.stateDir, 'sockets'));

  it('reaches nothing on the network, not even the host loopback, while the shell keeps its state', async () => {
    let connections = 0;
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    stack = await createSessionStack('bwrap', { network: 'none' });
    const { run } = stack;

    const interfaces = await run('s-net', "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect(interfaces.response.stdout).toBe('lo');
    const dial = await run('s-net', `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>&1; echo "exit=$?"`);
    expect(dial.response.stdout).toMatch(/exit=1$/);
    expect(connections).toBe(0);
    await run('s-net', 'cd /tmp && export MARK=kept');
    expect((await run('s-net', 'echo "$MARK in $PWD"')).response.stdout).toBe('kept in /tmp');
    expect(sockets()).toHaveLength(1);
    // The server's state dir (other sessions' sockets and workspaces) stays hidden.
    expect((await run('s-net', `ls -A ${stack.stateDir} | wc -l`)).response.stdout).toBe('0');
  });

  it('removes the socket when the session ends, and replaces a crashed agent with a new one', async () => {
    stack = await createSessionStack('bwrap', { network: 'none' });
    const { run, backend, manager } = stack;
    await run('s-crash', 'true');
    const first = (await backend.find('s-crash'))!;
    expect(first.agentUrl).toMatch(/^unix:\//);
    const crashed = stack.ended('s-crash', 'crashed');
    const sandbox = processRef(pidOf(first.sandboxName));
    expect(signalProcess(sandbox, 'SIGKILL')).toBe(true);
    // What this test is about starts once the backend saw the crash: a command sent in the instant before meets the
    // dead agent's socket and gets a transport error (C-K8S-7: never a blind retry; docs/local-backend.md).
    await crashed;
    expect(isAlive(sandbox)).toBe(false);
    const next = await run('s-crash', 'echo back');
    expect(next.response.stdout).toBe('back');
    expect((await backend.find('s-crash'))!.agentUrl).not.toBe(first.agentUrl);
    await expect.poll(() => sockets().length, { timeout: 10_000 }).toBe(1);
    await manager.end('s-crash', new AbortController().signal);
    await expect.poll(() => sockets().length, { timeout: 10_000 }).toBe(0);
  });

  it('claims warm agents over their sockets', async () => {
    stack = await createSessionStack('bwrap', { network: 'none', warmPoolSize: 1 });
    await stack.backend.start();
    await expect.poll(() => stack!.backend.warmReady, { timeout: 20_000 }).toBe(1);
    const claimed = await stack.run('s-warm', 'echo "$HOME"');
    expect(claimed).toMatchObject({ acquirePath: 'claim', response: { stdout: '/workspace' } });
  });
});
