/**
 * Issue 22 item 3, attacked the way a hostile command would, with real bubblewrap and the real agent: no path a
 * sandbox can change leads the server anywhere. The agent inherits a socket the server bound where no sandbox
 * sees it, so a symlink planted where the old socket lived (or anywhere else) reaches nothing; cleanup never
 * follows a symlink or a hard link out of a workspace.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem;

describeWhenReady('no path a bubblewrap sandbox can change leads the server anywhere (issue 22)', problem, () => {
  let host: string;
  let canary: Server;
  let canaryConnections = 0;
  let stack: SessionStack;

  beforeAll(async () => {
    // Not under /tmp (each sandbox has its own); on the state dir's file system, so hard links to it can be made.
    host = await mkdtemp(`/var/tmp/cli-mcp-it-host-${randomBytes(3).toString('hex')}-`);
    canary = createServer((socket) => (canaryConnections++, socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}')));
    await new Promise<void>((resolve, reject) => canary.once('error', reject).listen(join(host, 'canary.sock'), resolve));
    await mkdir(join(host, 'dir'));
    await writeFile(join(host, 'dir', 'kept.txt'), 'host dir file');
    await writeFile(join(host, 'secret.txt'), 'host file');
    stack = await createSessionStack('bwrap', { network: 'isolated' });
  });
  afterAll(async () => {
    await stack?.close();
    await new Promise((resolve) => canary.close(resolve));
    await rm(host, { recursive: true, force: true });
  });

  it('a symlink to a host socket planted wherever the agent socket could be is never connected to', async () => {
    const target = join(host, 'canary.sock');
    const plant = await stack.run('s-plant', [
      `for d in /.cli-mcp/socket /workspace /workspace/.cli-mcp /tmp /run /var/tmp; do ln -sf ${target} "$d/agent.sock" 2>/dev/null; done`,
      `mkdir -p /.cli-mcp/socket 2>/dev/null || echo no-socket-dir`,
      // Nothing socket-like is mounted in the sandbox any more.
      'find / -xdev -type s 2>/dev/null | wc -l',
    ].join('; '));
    expect(plant.response.stdout).toBe('no-socket-dir\n0');
    expect(new URL(`file:${(await stack.backend.find('s-plant'))!.agentUrl.slice('unix:'.length)}`).pathname.startsWith(stack.stateDir)).toBe(true);
    for (let i = 0; i < 3; i++) expect((await stack.run('s-plant', 'echo again')).response.stdout).toBe('again');
    // A crash makes the server start a new agent and connect afresh; that too must not follow anything planted.
    await stack.run('s-plant', 'kill -9 $PPID').catch(() => undefined);
    const after = await stack.run('s-plant', 'ls /workspace/agent.sock && echo still-here');
    expect(after).toMatchObject({ sandboxRecreated: true, response: { stdout: '/workspace/agent.sock\nstill-here' } });
    expect(canaryConnections).toBe(0);
  });

  it('commands do not inherit the agent\'s listening socket (pipe and tty mode)', async () => {
    const probe = '[ -e /proc/$$/fd/4 ] && echo "fd4: $(readlink /proc/$$/fd/4)" || echo no-fd4';
    expect((await stack.run('s-fd', probe)).response.stdout).toBe('no-fd4');
    const tty = await stack.manager.execute('s-fd', { command: probe, tty: true, timeout: 20 }, new AbortController().signal);
    expect(tty.response.stdout).toBe('no-fd4');
  });

  it('cleanup follows no symlink or hard link out of the workspace or its outputs folder', async () => {
    await stack.run('s-links', 'seq 1 20000 >/dev/null; head -c 300000 /dev/zero | tr "\\0" x; echo');
    const workspace = stack.backend.find('s-links').then((handle) => handle!);
    expect((await workspace).sessionId).toBe('s-links');
    const dir = join(stack.stateDir, 'sessions', 's-links', 'workspace');
    for (const where of [dir, join(dir, '.cli-mcp')]) {
      await symlink(join(host, 'secret.txt'), join(where, 'file-link'));
      await symlink(join(host, 'dir'), join(where, 'dir-link'));
      await link(join(host, 'secret.txt'), join(where, `hard-${where === dir ? 'ws' : 'out'}`));
    }
    // The agent reads and prunes its outputs folder while it works; then DELETE removes the workspace.
    const read = await stack.run('s-links', 'cat /workspace/hard-ws; echo; ls /workspace/.cli-mcp | grep -c link; cat /workspace/file-link 2>&1 | head -c 40');
    expect(read.response.stdout).toMatch(/^host file\n2\ncat: \/workspace\/file-link: No such file/);
    await stack.backend.end('s-links');
    expect(existsSync(dir)).toBe(false);
    expect(await readFile(join(host, 'secret.txt'), 'utf8')).toBe('host file');
    expect(statSync(join(host, 'secret.txt')).nlink).toBe(1);
    expect(await readFile(join(host, 'dir', 'kept.txt'), 'utf8')).toBe('host dir file');
  });
});
