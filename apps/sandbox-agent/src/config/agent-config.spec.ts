import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildShellEnv, configHelpText, loadAgentConfig, CONFIG_HELP } from './agent-config.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(loadAgentConfig.name, () => {
  it('applies the documented defaults', () => {
    const r = loadAgentConfig({}, dir);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config).toMatchObject({
      authToken: undefined, port: 8090, host: '0.0.0.0', workdir: dir, outputDir: join(dir, '.cli-mcp'), shell: 'bash',
      defaultTimeoutSeconds: 60, maxTimeoutSeconds: 300, outputBufferBytes: 262_144, killGraceMs: 500, logLevel: 'info',
      readyFd: undefined, exitWithParent: false, dumpable: false, socketPath: undefined, listenFd: undefined,
      spill: { thresholdBytes: 16_384, maxFileBytes: 268_435_456, maxCommands: 20, maxTotalBytes: 536_870_912 },
    });
  });

  it('reads every variable', () => {
    const r = loadAgentConfig({
      SANDBOX_AUTH_TOKEN: 't', SANDBOX_AGENT_PORT: '0', SANDBOX_AGENT_HOST: '127.0.0.1', SANDBOX_WORKDIR: dir,
      SANDBOX_OUTPUT_DIR: 'off', SANDBOX_SHELL: '/bin/bash', SANDBOX_DEFAULT_TIMEOUT_SECONDS: '5',
      SANDBOX_MAX_TIMEOUT_SECONDS: '10', SANDBOX_OUTPUT_BUFFER_BYTES: '4096', SANDBOX_SPILL_THRESHOLD_BYTES: '2048',
      SANDBOX_SPILL_MAX_FILE_BYTES: '9', SANDBOX_SPILL_MAX_COMMANDS: '3', SANDBOX_SPILL_MAX_TOTAL_BYTES: '99',
      SANDBOX_KILL_GRACE_MS: '0', SANDBOX_LOG_LEVEL: 'DEBUG', SANDBOX_READY_FD: '3', SANDBOX_EXIT_WITH_PARENT: '1',
      SANDBOX_DUMPABLE: 'yes',
    }, '/');
    expect(r.ok && r.config).toMatchObject({
      authToken: 't', port: 0, host: '127.0.0.1', outputDir: null, shell: '/bin/bash', defaultTimeoutSeconds: 5,
      maxTimeoutSeconds: 10, outputBufferBytes: 4096, killGraceMs: 0, logLevel: 'debug', readyFd: 3, exitWithParent: true, dumpable: true,
      spill: { thresholdBytes: 2048, maxFileBytes: 9, maxCommands: 3, maxTotalBytes: 99 },
    });
  });

  it('reads SANDBOX_AGENT_LISTEN_FD and refuses stdio or garbage', () => {
    expect(loadAgentConfig({ SANDBOX_AGENT_LISTEN_FD: '4' }, dir)).toMatchObject({ ok: true, config: { listenFd: 4 } });
    for (const bad of ['1', 'x']) {
      expect(loadAgentConfig({ SANDBOX_AGENT_LISTEN_FD: bad }, dir)).toMatchObject({ ok: false, problems: [expect.stringMatching(/^SANDBOX_AGENT_LISTEN_FD: /)] });
    }
  });

  it('reads SANDBOX_AGENT_SOCKET and refuses a relative or over-long socket path', () => {
    expect(loadAgentConfig({ SANDBOX_AGENT_SOCKET: '/run/agent.sock' }, dir)).toMatchObject({ ok: true, config: { socketPath: '/run/agent.sock' } });
    const relative = loadAgentConfig({ SANDBOX_AGENT_SOCKET: 'agent.sock' }, dir);
    expect(relative).toEqual({ ok: false, problems: ['SANDBOX_AGENT_SOCKET: must be an absolute path (got "agent.sock")'] });
    const long = loadAgentConfig({ SANDBOX_AGENT_SOCKET: `/${'s'.repeat(107)}` }, dir);
    expect(long).toEqual({ ok: false, problems: ['SANDBOX_AGENT_SOCKET: must be at most 107 bytes long'] });
  });

  it('reads the token from SANDBOX_AUTH_TOKEN_FD (winning over SANDBOX_AUTH_TOKEN) and reports an unreadable one', () => {
    const read: number[] = [];
    const fromFd = loadAgentConfig({ SANDBOX_AUTH_TOKEN_FD: '7', SANDBOX_AUTH_TOKEN: 'env' }, dir, (fd) => (read.push(fd), 'piped\n'));
    expect(fromFd).toMatchObject({ ok: true, config: { authToken: 'piped' } });
    expect(read).toEqual([7]);
    const broken = loadAgentConfig({ SANDBOX_AUTH_TOKEN_FD: '9' }, dir, () => {
      throw Object.assign(new Error('bad fd'), { code: 'EBADF' });
    });
    expect(broken).toEqual({ ok: false, problems: ['SANDBOX_AUTH_TOKEN_FD: cannot read descriptor 9: EBADF'] });
    expect(loadAgentConfig({ SANDBOX_AUTH_TOKEN_FD: '1' }, dir, () => 'x')).toMatchObject({ ok: false, problems: [expect.stringMatching(/^SANDBOX_AUTH_TOKEN_FD: /)] });
  });

  it('relays egress only with SANDBOX_EGRESS_SOCKET, on port 3128 unless SANDBOX_EGRESS_PORT says otherwise', () => {
    expect(loadAgentConfig({}, dir)).toMatchObject({ ok: true, config: { egress: undefined } });
    expect(loadAgentConfig({ SANDBOX_EGRESS_SOCKET: '/.cli-mcp/egress/gateway.sock' }, dir))
      .toMatchObject({ ok: true, config: { egress: { socketPath: '/.cli-mcp/egress/gateway.sock', port: 3128 } } });
    expect(loadAgentConfig({ SANDBOX_EGRESS_SOCKET: '/g.sock', SANDBOX_EGRESS_PORT: '8080' }, dir)).toMatchObject({ ok: true, config: { egress: { port: 8080 } } });
    expect(loadAgentConfig({ SANDBOX_EGRESS_SOCKET: 'g.sock' }, dir)).toEqual({ ok: false, problems: ['SANDBOX_EGRESS_SOCKET: must be an absolute path (got "g.sock")'] });
  });

  it('resolves a relative output directory against the workdir', () => {
    const r = loadAgentConfig({ SANDBOX_OUTPUT_DIR: 'outs' }, dir);
    expect(r.ok && r.config.outputDir).toBe(join(dir, 'outs'));
  });

  it('reports every problem at once, each naming its variable', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const r = loadAgentConfig({
      SANDBOX_AGENT_PORT: '70000', SANDBOX_WORKDIR: file, SANDBOX_DEFAULT_TIMEOUT_SECONDS: 'soon',
      SANDBOX_MAX_TIMEOUT_SECONDS: '-1', SANDBOX_OUTPUT_BUFFER_BYTES: '1', SANDBOX_KILL_GRACE_MS: '1.5',
      SANDBOX_LOG_LEVEL: 'loud', SANDBOX_READY_FD: 'x', SANDBOX_EXIT_WITH_PARENT: 'maybe', SANDBOX_SPILL_MAX_COMMANDS: '0',
    }, dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const named = r.problems.map((p) => p.split(':')[0]);
    expect(named).toEqual(expect.arrayContaining([
      'SANDBOX_AGENT_PORT', 'SANDBOX_WORKDIR', 'SANDBOX_DEFAULT_TIMEOUT_SECONDS', 'SANDBOX_MAX_TIMEOUT_SECONDS',
      'SANDBOX_OUTPUT_BUFFER_BYTES', 'SANDBOX_KILL_GRACE_MS', 'SANDBOX_LOG_LEVEL', 'SANDBOX_READY_FD',
      'SANDBOX_EXIT_WITH_PARENT', 'SANDBOX_SPILL_MAX_COMMANDS',
    ]));
  });

  it('checks relations between limits', () => {
    const r = loadAgentConfig({ SANDBOX_DEFAULT_TIMEOUT_SECONDS: '400', SANDBOX_OUTPUT_BUFFER_BYTES: '4096',
      SANDBOX_SPILL_THRESHOLD_BYTES: '4000' }, dir);
    expect(!r.ok && r.problems.join('\n')).toMatch(/SANDBOX_DEFAULT_TIMEOUT_SECONDS.*\n.*SANDBOX_SPILL_THRESHOLD_BYTES/);
  });

  it('rejects a missing workdir', () => {
    const r = loadAgentConfig({ SANDBOX_WORKDIR: join(dir, 'missing') }, dir);
    expect(!r.ok && r.problems[0]).toMatch(/^SANDBOX_WORKDIR: does not exist/);
  });
});

describe(buildShellEnv.name, () => {
  it('drops every SANDBOX_* variable and empties the prompts', () => {
    expect(buildShellEnv({ PATH: '/bin', SANDBOX_AUTH_TOKEN: 's', SANDBOX_X: 'y', PS1: '$ ', HOME: '/h' }))
      .toEqual({ PATH: '/bin', HOME: '/h', PS1: '', PS2: '' });
  });
});

describe(configHelpText.name, () => {
  it('lists every variable', () => {
    const help = configHelpText();
    for (const [name] of CONFIG_HELP) expect(help).toContain(name);
  });
});
