import { describe, expect, it } from 'vitest';
import { buildAgentEnv, buildBwrapArgs, buildLaunchSpec, nodeInstallPrefix, SANDBOX_PATH, type BwrapPlan } from './launch-spec.js';

const plan: BwrapPlan = {
  bwrapPath: '/usr/bin/bwrap',
  rootEntries: [{ name: 'usr' }, { name: 'bin', symlinkTarget: 'usr/bin' }, { name: 'proc' }, { name: 'tmp' }, { name: 'home' }, { name: 'workspace' }],
  maskFirst: ['/users/me'],
  keep: ['/users/me/.nvm/versions/node/v20', '/opt/cli-mcp'],
  maskLast: ['/users/me/.local/state/cli-mcp'],
  hideFiles: ['/etc/cli-mcp/hmac.key'],
};

describe('buildAgentEnv', () => {
  it('builds the environment from an allow-list, never the host env', () => {
    const env = buildAgentEnv({
      workdir: '/workspace', token: 'tok',
      hostEnv: { LANG: 'C.UTF-8', AWS_SECRET_ACCESS_KEY: 'x', PATH: '/users/me/bin:/usr/bin', CLI_MCP_AUTH: 'y' },
      extraEnv: { FOO: 'bar', SANDBOX_AUTH_TOKEN: 'forged', HOME: '/etc' },
    });
    expect(env).toEqual({
      PATH: SANDBOX_PATH, LANG: 'C.UTF-8', FOO: 'bar', HOME: '/workspace', TMPDIR: '/tmp',
      SANDBOX_AGENT_HOST: '127.0.0.1', SANDBOX_AGENT_PORT: '0', SANDBOX_READY_FD: '3', SANDBOX_WORKDIR: '/workspace',
      SANDBOX_OUTPUT_DIR: '/workspace/.cli-mcp', SANDBOX_EXIT_WITH_PARENT: '1', SANDBOX_LOG_LEVEL: 'warn',
      SANDBOX_AUTH_TOKEN: 'tok',
    });
  });

  it('gives warm agents no token', () => {
    expect(buildAgentEnv({ workdir: '/w', hostEnv: {} })).not.toHaveProperty('SANDBOX_AUTH_TOKEN');
  });
});

describe('buildBwrapArgs', () => {
  const args = buildBwrapArgs(plan, '/state/sessions/s1/workspace');
  const joined = args.join(' ');

  it('isolates pid/ipc/uts, drops capabilities and dies with the server', () => {
    expect(args.slice(0, 10)).toEqual([
      '--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--hostname', 'cli-mcp-sandbox',
      '--new-session', '--cap-drop', 'ALL', '--ro-bind',
    ]);
    expect(args).not.toContain('--unshare-net');
  });

  it('re-creates / read-only entry by entry with fresh /proc, /dev, /tmp and a read-only root', () => {
    expect(joined).toContain('--ro-bind /usr /usr --symlink usr/bin /bin --ro-bind /home /home');
    expect(joined).not.toContain('--ro-bind /proc');
    expect(joined).not.toContain('--ro-bind /tmp');
    expect(joined).not.toContain('--ro-bind /workspace');
    expect(joined).toContain('--dev /dev --proc /proc --tmpfs /tmp');
    expect(joined.endsWith('--bind /state/sessions/s1/workspace /workspace --remount-ro / --chdir /workspace')).toBe(true);
  });

  it('masks home, re-binds kept trees under it, then masks the state dir and key file', () => {
    const at = (...needle: string[]) => joined.indexOf(needle.join(' '));
    expect(at('--tmpfs /users/me')).toBeGreaterThan(at('--tmpfs /tmp'));
    expect(at('--ro-bind /users/me/.nvm/versions/node/v20 /users/me/.nvm/versions/node/v20')).toBeGreaterThan(at('--tmpfs /users/me'));
    // Not under a mask: already visible through the read-only root.
    expect(joined).not.toContain('--ro-bind /opt/cli-mcp');
    expect(at('--tmpfs /users/me/.local/state/cli-mcp')).toBeGreaterThan(at('--ro-bind /users/me/.nvm'));
    expect(joined).toContain('--ro-bind /dev/null /etc/cli-mcp/hmac.key');
    expect(at('--bind /state')).toBeGreaterThan(at('--tmpfs /users/me/.local'));
  });

  it('re-binds a kept tree under /tmp (a checkout there), after the fresh /tmp, and still hides a state dir there', () => {
    const args = buildBwrapArgs({ ...plan, keep: ['/tmp/ci-clone'], maskLast: ['/tmp/ci-clone/state'] }, '/state/w').join(' ');
    expect(args.indexOf('--ro-bind /tmp/ci-clone /tmp/ci-clone')).toBeGreaterThan(args.indexOf('--tmpfs /tmp'));
    expect(args.indexOf('--tmpfs /tmp/ci-clone/state')).toBeGreaterThan(args.indexOf('--ro-bind /tmp/ci-clone'));
  });

  it('never masks /', () => {
    expect(buildBwrapArgs({ ...plan, maskFirst: ['/'], maskLast: [''] }, '/w').join(' ')).not.toMatch(/--tmpfs \/ |--tmpfs $/);
  });
});

describe('buildLaunchSpec', () => {
  it('none: node runs the agent in the workspace with host paths', () => {
    const spec = buildLaunchSpec({ isolation: 'none', nodePath: '/usr/bin/node', agentEntry: '/repo/main.js', workspaceHostDir: '/state/sessions/s1/workspace', token: 't', hostEnv: {} });
    expect(spec.command).toBe('/usr/bin/node');
    expect(spec.args).toEqual(['/repo/main.js']);
    expect(spec.cwd).toBe('/state/sessions/s1/workspace');
    expect(spec.env.SANDBOX_WORKDIR).toBe('/state/sessions/s1/workspace');
    expect(spec.env.HOME).toBe('/state/sessions/s1/workspace');
  });

  it('bwrap: wraps node, and the agent sees /workspace', () => {
    const spec = buildLaunchSpec({ isolation: 'bwrap', nodePath: '/usr/bin/node', agentEntry: '/repo/main.js', workspaceHostDir: '/w', hostEnv: {}, bwrap: plan });
    expect(spec.command).toBe('/usr/bin/bwrap');
    expect(spec.args.slice(-2)).toEqual(['/usr/bin/node', '/repo/main.js']);
    expect(spec.env.SANDBOX_WORKDIR).toBe('/workspace');
    expect(spec.env.SANDBOX_OUTPUT_DIR).toBe('/workspace/.cli-mcp');
  });

  it('finds the install prefix of node', () => {
    expect(nodeInstallPrefix('/usr/bin/node')).toBe('/usr');
    expect(nodeInstallPrefix('/users/me/.nvm/versions/node/v20/bin/node')).toBe('/users/me/.nvm/versions/node/v20');
  });
});
