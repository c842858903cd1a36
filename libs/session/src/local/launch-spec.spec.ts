import { describe, expect, it } from 'vitest';
import { buildBwrapCommand } from './bwrap-command.js';
import { buildAgentEnv, buildLaunchSpec, SANDBOX_PATH } from './launch-spec.js';
import { FIRST_EXTRA_FD } from './process-launcher.js';
import { sandboxView, type ViewBase } from './sandbox-view.js';

const base: ViewBase = {
  mounts: [
    { kind: 'ro-bind', source: '/usr', dest: '/usr' },
    { kind: 'symlink', target: 'usr/bin', dest: '/bin' },
    { kind: 'ro-bind', source: '/etc', dest: '/etc' },
    { kind: 'ro-bind', source: '/repo/dist/sandbox-agent', dest: '/.cli-mcp/agent' },
  ],
  files: [{ dest: '/etc/resolv.conf', content: 'nameserver 10.0.2.3\n' }],
  agentEntry: '/.cli-mcp/agent/main.js',
};
const view = sandboxView(base, '/state/sessions/s1/workspace');

describe('buildAgentEnv', () => {
  it('builds the environment from an allow-list, never the host env', () => {
    const env = buildAgentEnv({
      workdir: '/workspace', tokenFd: 9,
      hostEnv: { LANG: 'C.UTF-8', AWS_SECRET_ACCESS_KEY: 'x', PATH: '/users/me/bin:/usr/bin', CLI_MCP_AUTH: 'y' },
      extraEnv: { FOO: 'bar', SANDBOX_AUTH_TOKEN: 'forged', HOME: '/etc' },
    });
    expect(env).toEqual({
      PATH: SANDBOX_PATH, LANG: 'C.UTF-8', FOO: 'bar', HOME: '/workspace', TMPDIR: '/tmp',
      SANDBOX_AGENT_HOST: '127.0.0.1', SANDBOX_AGENT_PORT: '0', SANDBOX_READY_FD: '3', SANDBOX_WORKDIR: '/workspace',
      SANDBOX_OUTPUT_DIR: '/workspace/.cli-mcp', SANDBOX_EXIT_WITH_PARENT: '1', SANDBOX_LOG_LEVEL: 'warn',
      SANDBOX_AUTH_TOKEN_FD: '9',
    });
  });

  it('gives warm agents no token', () => {
    const env = buildAgentEnv({ workdir: '/w', hostEnv: {} });
    expect(env).not.toHaveProperty('SANDBOX_AUTH_TOKEN');
    expect(env).not.toHaveProperty('SANDBOX_AUTH_TOKEN_FD');
  });
});

describe(buildBwrapCommand.name, () => {
  const input = {
    bwrapPath: '/usr/bin/bwrap', setprivPath: '/usr/bin/setpriv', serverUser: { uid: 1000, gid: 1001 }, view, fileFds: [5], command: ['/proc/self/fd/6', '/.cli-mcp/agent/main.js'],
  };
  const asUser = buildBwrapCommand({ ...input, network: 'isolated', infoFd: 4 });
  const at = asUser.args.indexOf('/usr/bin/bwrap');
  const [outer, inner] = [asUser.args.slice(0, at).join(' '), asUser.args.slice(at + 1).join(' ')];

  it('outer level: host paths into the view, own pid and network namespaces, info fd, nothing else of the host', () => {
    expect(asUser.command).toBe('/usr/bin/bwrap');
    // A server that is not root is uid 0, with capabilities, of the user namespace that owns the sandbox's network
    // namespace: slirp4netns joins it as uid 0, and the inner level maps the sandbox back to the server's uid.
    expect(outer).toMatch(/^--die-with-parent --unshare-pid --unshare-user --uid 0 --gid 0 --cap-add ALL --unshare-net --info-fd 4 /);
    expect(outer).toContain('--perms 0755 --dir /.cli-mcp ');
    expect(outer).toContain('--ro-bind /usr /usr --symlink usr/bin /bin --ro-bind /etc /etc --ro-bind /repo/dist/sandbox-agent /.cli-mcp/agent');
    expect(outer).toContain('--bind /state/sessions/s1/workspace /workspace --dev /dev');
    expect(outer).not.toMatch(/\/home|\/root|\/run|\/srv|\/mnt|\/var/);
    // The agent's files are copied into a tmpfs, so no bind of a host path shows them in mountinfo (issue 22).
    expect(outer).toMatch(/--tmpfs \/.stage --remount-ro \/ -- \/bin\/sh -c cp -R --preserve=mode -- \/.cli-mcp\/agent \/.stage\/ && exec "\$@" sh$/);
  });

  it('inner level: user namespace without nested ones, pid/ipc/uts/cgroup namespaces, new session, no capabilities', () => {
    expect(inner).toMatch(/^--unshare-user --uid 1000 --gid 1001 --disable-userns --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup --hostname cli-mcp-sandbox --die-with-parent --new-session --cap-drop ALL /);
    expect(inner).toContain('--ro-bind /.stage/agent /.cli-mcp/agent');
    expect(inner).not.toContain('--ro-bind /.cli-mcp/agent');
    expect(inner).toContain('--bind /workspace /workspace --dev /dev --proc /proc --tmpfs /tmp --dir /var --tmpfs /var/tmp --tmpfs /run');
    expect(inner).toMatch(/--ro-bind-data 5 \/etc\/resolv.conf --remount-ro \/ --chdir \/workspace -- \/proc\/self\/fd\/6 \/.cli-mcp\/agent\/main.js$/);
  });

  it('a root server drops to the sandbox user between the levels and makes no user namespace in the outer one', () => {
    const asRoot = buildBwrapCommand({ ...input, network: 'host', dropTo: { uid: 65534, gid: 65534 } }).args.join(' ');
    expect(asRoot).toMatch(/^--die-with-parent --unshare-pid --perms/);
    expect(asRoot).toContain('exec "$@" sh /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/bwrap --unshare-user --disable-userns');
    expect(asRoot).not.toContain('--unshare-net');
    expect(asRoot).not.toMatch(/--uid|--cap-add/);
  });
});

describe(buildLaunchSpec.name, () => {
  it('none: node runs the agent (with the agent\'s Node flags) in the workspace with host paths; the token on a pipe', () => {
    const spec = buildLaunchSpec({ isolation: 'none', nodePath: '/usr/bin/node', agentEntry: '/repo/main.js', workspaceHostDir: '/state/sessions/s1/workspace', token: 't', hostEnv: {} });
    expect(spec).toMatchObject({ command: '/usr/bin/node', args: ['--max-semi-space-size=1', '/repo/main.js'], cwd: '/state/sessions/s1/workspace' });
    expect(spec.extraFds).toEqual([{ kind: 'data', content: 't' }]);
    expect(spec.env.SANDBOX_AUTH_TOKEN_FD).toBe(String(FIRST_EXTRA_FD));
    expect(Object.values(spec.env)).not.toContain('t');
    expect(spec.env.SANDBOX_WORKDIR).toBe('/state/sessions/s1/workspace');
    expect(spec.env.HOME).toBe('/state/sessions/s1/workspace');
  });

  it('bwrap: the agent runs from its fixed path, Node from a descriptor (no mount names its host path); sees /workspace; isolated networking asks for the info fd', () => {
    const spec = buildLaunchSpec({
      isolation: 'bwrap', nodePath: '/usr/bin/node', agentEntry: '/repo/dist/sandbox-agent/main.js', workspaceHostDir: '/w', hostEnv: {}, token: 'secret',
      agentEnv: { SANDBOX_MAX_TIMEOUT_SECONDS: '600' },
      bwrap: { bwrapPath: 'bwrap', setprivPath: 'setpriv', serverUser: { uid: 1000, gid: 1000 }, view, network: 'isolated' },
    });
    expect(spec.args.slice(-3)).toEqual([`/proc/self/fd/${FIRST_EXTRA_FD + 3}`, '--max-semi-space-size=1', '/.cli-mcp/agent/main.js']);
    expect(spec.extraFds).toEqual([
      { kind: 'data', content: 'secret' }, { kind: 'info' }, { kind: 'data', content: 'nameserver 10.0.2.3\n' }, { kind: 'file', path: '/usr/bin/node' },
    ]);
    expect(spec.args.join(' ')).not.toContain('/usr/bin/node');
    expect(spec.args.join(' ')).toContain(`--info-fd ${FIRST_EXTRA_FD + 1} `);
    expect(spec.args.join(' ')).toContain(`--ro-bind-data ${FIRST_EXTRA_FD + 2} /etc/resolv.conf`);
    // Neither bubblewrap's environment nor its arguments carry the token (bubblewrap's init is the sandbox's pid 1).
    expect(spec.env.SANDBOX_AUTH_TOKEN_FD).toBe(String(FIRST_EXTRA_FD));
    expect([...Object.values(spec.env), ...spec.args].join(' ')).not.toContain('secret');
    expect(spec.env).toMatchObject({ SANDBOX_WORKDIR: '/workspace', SANDBOX_OUTPUT_DIR: '/workspace/.cli-mcp', SANDBOX_MAX_TIMEOUT_SECONDS: '600' });
  });
});
