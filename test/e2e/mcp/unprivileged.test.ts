/**
 * The built server as an ordinary user, the way it runs on a laptop (the rest of CI runs as root, whose sandboxes
 * take another path: setpriv to uid 65534 between two bubblewrap levels). With the default `--local-network auto`
 * its sandboxes must get the isolated network for real — slirp4netns joins a user namespace the server user owns —
 * see only the documented paths, and not reach the server (C-SEC-1, C-SEC-2, C-SEC-4). Found this way: a non-root
 * server answered every command with "slirp4netns exited before the network was up" while /health said isolated.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { dirname } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bash, connectHttpClient, structuredOf } from './support/mcp-client.js';
import { REPO_ROOT, UNPRIVILEGED_USER, useHttpServer } from './support/server-process.js';
import { describeWhenReady } from '../../support/prerequisites.js';

// Not 65534, which root servers' sandboxes share (server-process.ts says why).
const SERVER_USER = UNPRIVILEGED_USER;
const execFileAsync = promisify(execFile);
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
const asServerUser = (...command: string[]) => spawnSync('setpriv', [`--reuid=${SERVER_USER.uid}`, `--regid=${SERVER_USER.gid}`, '--clear-groups', '--', ...command]);

function unprivilegedProblem(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: this suite itself runs unprivileged, so every e2e test covers this path already';
  if (asServerUser('bwrap', '--unshare-user', '--unshare-net', '--ro-bind', '/', '/', 'true').status !== 0) return 'unprivileged bubblewrap does not work here (user namespaces disabled?)';
  if (spawnSync('slirp4netns', ['--version']).status !== 0) return 'slirp4netns is not installed (Debian package slirp4netns)';
  try {
    accessSync('/dev/net/tun', constants.R_OK | constants.W_OK);
    if ((statSync('/dev/net/tun').mode & 0o006) !== 0o006) return '/dev/net/tun is not mode 0666 here (udev\'s default on workstations; .ci/run sets it)';
  } catch {
    return '/dev/net/tun does not exist here';
  }
  for (let dir = REPO_ROOT; dir !== dirname(dir); dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return `the checkout is not reachable by other users (${dir} has no o+x)`;
  }
  return undefined;
}

describeWhenReady('the built server run by an unprivileged user, default settings', unprivilegedProblem(), () => {
  let client: Client;
  const server = useHttpServer({ runAs: SERVER_USER });
  beforeAll(async () => {
    client = await connectHttpClient(server().mcpUrl, 'unprivileged-a');
  });
  afterAll(async () => {
    await client?.close();
  });

  it('says in /health that sandboxes are isolated with their own network, and warns only where no cgroup bounds them', async () => {
    const health = (await (await fetch(`${server().baseUrl}/health`)).json()) as { info: { sessions: Record<string, unknown> } };
    expect(health.info.sessions).toMatchObject({ isolation: 'bwrap', network: 'isolated', sandbox_user: 'server user' });
    // Bounds (issue 22): an ordinary user has a systemd user scope on a laptop; where it has none (this CI user)
    // nor a writable cgroup, tasks fall back to RLIMIT_NPROC and memory to the tmpfs sizes — said, never hidden.
    const scope = asServerUser('systemd-run', '--user', '--scope', '--quiet', '--collect', '--', 'true').status === 0;
    expect(health.info.sessions.bounds).toMatchObject({ tasks: scope ? '1024 (systemd-scope)' : '1024 (rlimit RLIMIT_NPROC)' });
    if (scope) expect(health.info.sessions).not.toHaveProperty('warnings');
    else {
      expect(health.info.sessions.warnings).toEqual([
        expect.stringMatching(/^local sandboxes' tasks are bounded only by RLIMIT_NPROC/), expect.stringMatching(/^local sandboxes' memory is bounded only by monitoring/),
      ]);
    }
  });

  it('cannot reach a host service on an abstract Unix socket that any host user can reach (own network namespace)', async () => {
    const name = `cli-mcp-unpriv-${process.pid}`;
    // An abstract socket has no file and no permissions: only the network namespace separates it.
    const serve = `import socket\ns=socket.socket(socket.AF_UNIX)\ns.bind("\\0${name}")\ns.listen()\nprint("ready",flush=True)\nwhile True:\n c,_=s.accept(); c.sendall(b"host service"); c.close()`;
    const connect = `import socket\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect("\\0${name}"); print(s.recv(64).decode())\nexcept OSError as e:\n print("refused", e.errno)`;
    const listener = spawn('/usr/bin/python3', ['-c', serve], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise((resolve) => listener.stdout.once('data', resolve));
      const fromHost = await execFileAsync('setpriv', [`--reuid=${SERVER_USER.uid}`, `--regid=${SERVER_USER.gid}`, '--clear-groups', '--', '/usr/bin/python3', '-c', connect]);
      expect(fromHost.stdout.trim(), 'the listener is reachable from the host as the same user').toBe('host service');
      const inside = structuredOf(await bash(client, `/usr/bin/python3 -c ${shellQuote(connect)}`));
      expect(inside.stdout).toMatch(/^refused \d+$/);
    } finally {
      listener.kill('SIGKILL');
    }
  });

  it('runs commands with shell state in a sandbox that sees only its view and cannot reach the server', async () => {
    const port = new URL(server().mcpUrl).port;
    await bash(client, 'cd /tmp && export MARK=kept');
    const probe = [
      'pwd; echo "$MARK"; id -u',
      `for p in /home /root /run/user "${server().stateDir}" "${REPO_ROOT}"; do [ -e "$p" ] && echo "sees $p"; done`,
      // Not even by name: mountinfo shows no bind of the checkout (the agent's files are tmpfs copies, issue 22).
      `grep -cF ${shellQuote(REPO_ROOT)} /proc/self/mountinfo`,
      `curl -s --max-time 5 -o /dev/null http://127.0.0.1:${port}/live; echo "curl=$?"`,
      'ip -brief addr show tap0 | cut -d" " -f1',
    ].join('; ');
    const result = structuredOf(await bash(client, probe));
    expect(result.stdout).toBe(`/tmp\nkept\n${SERVER_USER.uid}\n0\ncurl=7\ntap0`);
  });
});
