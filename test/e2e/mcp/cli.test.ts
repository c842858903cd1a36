import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envVarName } from '@cli-mcp/common';
import { ENV_PREFIX, SERVER_FLAGS } from '../../../apps/mcp-server/src/config/server-flags.js';
import { assertBuilt, removeDir, runCli, tempDir } from './support/server-process.js';

/** A free port: bound and released, so "nothing listening" can be checked by binding it again. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('cli-mcp-server command line', () => {
  let stateDir: string;
  beforeAll(() => {
    assertBuilt();
    stateDir = tempDir('cli');
  });
  afterAll(() => removeDir(stateDir));

  it('--help lists every flag with its env var and default, and exits 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const spec of SERVER_FLAGS) {
      expect(run.stdout).toContain(`--${spec.name}`);
      if (!spec.noEnv) expect(run.stdout).toContain(envVarName(ENV_PREFIX, spec.name));
    }
    expect(run.stdout).toContain('default: 127.0.0.1:8080');
    expect(run.stderr).toBe('');
  });

  it('--version prints the version', async () => {
    const run = await runCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^cli-mcp-server \d+\.\d+\.\d+\S*\n$/);
  });

  it('reports every bad flag at once, each naming the flag and env var, exits non-zero and listens on nothing', async () => {
    const port = await freePort();
    const run = await runCli(
      [
        '--transport', 'http',
        '--address', `127.0.0.1:${port}`,
        '--state-dir', stateDir,
        '--default-timeout', 'soon',
        '--max-output-chars', 'lots',
        '--result-format', 'yaml',
        '--bogus',
      ],
      { CLI_MCP_LOG_LEVEL: 'chatty' },
    );
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--default-timeout (env CLI_MCP_DEFAULT_TIMEOUT): invalid duration "soon"');
    expect(run.stderr).toContain('--max-output-chars (env CLI_MCP_MAX_OUTPUT_CHARS): must be a whole number; got "lots"');
    expect(run.stderr).toContain('--result-format (env CLI_MCP_RESULT_FORMAT): must be one of the following values: text, json; got "yaml"');
    expect(run.stderr).toContain('--log-level (env CLI_MCP_LOG_LEVEL): must be one of');
    expect(run.stderr).toContain('[from CLI_MCP_LOG_LEVEL]');
    expect(run.stderr).toContain('unknown flag --bogus');
    expect(await portIsFree(port)).toBe(true);
  });

  it('refuses a non-loopback HTTP address without --auth-token-file, naming both flags', async () => {
    const run = await runCli(['--transport', 'http', '--address', '0.0.0.0:0', '--state-dir', stateDir]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('HTTP transport requires a loopback --address (env CLI_MCP_ADDRESS) (got "0.0.0.0:0")');
    expect(run.stderr).toContain('--auth-token-file (env CLI_MCP_AUTH_TOKEN_FILE)');
  });

  it('refuses --backend kubernetes without its required flags, naming each flag', async () => {
    const run = await runCli(['--backend', 'kubernetes', '--state-dir', stateDir]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--hmac-key-file (env CLI_MCP_HMAC_KEY_FILE) is required with --backend kubernetes');
    expect(run.stderr).toContain('--namespace (env CLI_MCP_NAMESPACE) is required');
    expect(run.stderr).toContain('--sandbox-image (env CLI_MCP_SANDBOX_IMAGE) is required');
  });
});
