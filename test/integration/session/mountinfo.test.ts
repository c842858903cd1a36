/**
 * Issue 22 item 3: `/proc/self/mountinfo` inside a real bubblewrap sandbox names no host path of the server's
 * installation. Its 4th field ("root") is the mounted directory's path on its file system, so a bind of the
 * checkout's `dist/sandbox-agent` or `node_modules/node-pty` shows the checkout however it is mounted; the agent's
 * files are copied into a tmpfs instead, and Node is exec'd from an inherited descriptor, not mounted (docs/security.md
 * "What mountinfo shows"). The one exception is the workspace: its files live on the host disk and its root field
 * is its path there (documented limit).
 */
import { realpathSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentProblem, bwrapProblem, REPO_ROOT } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem;

interface MountLine {
  root: string;
  mountPoint: string;
  line: string;
}

function parse(text: string): MountLine[] {
  return text.trim().split('\n').map((line) => {
    const fields = line.split(' ');
    return { root: fields[3]!, mountPoint: fields[4]!, line };
  });
}

describeWhenReady('mountinfo in a bubblewrap sandbox names no host installation path (issue 22)', problem, () => {
  let stack: SessionStack;
  let mounts: MountLine[];

  beforeAll(async () => {
    stack = await createSessionStack('bwrap', { network: 'none' });
    const result = await stack.run('s-mountinfo', 'cat /proc/self/mountinfo');
    mounts = parse(result.response.stdout);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('shows the agent and its packages as tmpfs copies, not as binds of host directories', () => {
    const agent = mounts.filter((mount) => mount.mountPoint.startsWith('/.cli-mcp/'));
    expect(agent.map((mount) => [mount.mountPoint, mount.root, mount.line.split(' - ')[1]!.split(' ')[0]])).toEqual([
      ['/.cli-mcp/agent', '/agent', 'tmpfs'],
      ['/.cli-mcp/node_modules', '/node_modules', 'tmpfs'],
    ]);
  });

  it('copies of the prctl addon hold what loads only: its package.json and module, no sources or build tree', async () => {
    const listing = await stack.run('s-mountinfo', 'cd /.cli-mcp/node_modules/@cli-mcp && find . -type f | sort');
    expect(listing.response.stdout.split('\n')).toEqual(['./non-dumpable/build/Release/non_dumpable.node', './non-dumpable/package.json']);
  });

  it('mounts no Node binary: wherever Node is installed (a home, a checkout), no mount names it', () => {
    const node = realpathSync(process.execPath);
    expect(mounts.filter((mount) => mount.root === node || mount.mountPoint.endsWith('/node')).map((mount) => mount.line)).toEqual([]);
  });

  it('names neither the checkout, nor node_modules, nor the server user\'s home or name', () => {
    const checkout = REPO_ROOT.replace(/\/$/, '');
    const home = homedir();
    const user = userInfo().username;
    for (const { root, mountPoint, line } of mounts) {
      for (const path of [root, mountPoint]) {
        expect(path, line).not.toContain(checkout);
        if (home !== '/') expect(path.startsWith(`${home}/`) || path === home, line).toBe(false);
        expect(path.split('/'), line).not.toContain(user);
      }
    }
  });

  it('names the state dir only as the source of /workspace (its files live on the host disk)', () => {
    const naming = mounts.filter((mount) => mount.line.includes(stack.stateDir));
    expect(naming.map((mount) => mount.mountPoint)).toEqual(['/workspace']);
  });
});
