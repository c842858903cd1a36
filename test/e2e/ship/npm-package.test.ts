/**
 * Installable outside the repository (issue 10, C-SHIP-4): `npm pack` of this package, installed with
 * `npm install -g` into a scratch prefix, works from a clean PATH with nothing of the checkout around it:
 * `cli-mcp-server --help`, a stdio session driven by the SDK client, and `sandbox-agent` (tty mode included, so
 * node-pty was built). The tarball holds runtime files only. Dependencies come from the npm cache
 * (`--prefer-offline`: the registry is asked only for what the cache lacks).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhenReady } from '../../support/prerequisites.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const built = ['dist/mcp-server/main.js', 'dist/sandbox-agent/main.js'].every((path) => spawnSync('test', ['-f', join(ROOT, path)]).status === 0);

describeWhenReady('the npm package installed outside the repository', built ? undefined : 'the server and agent are not built (dist/); run npm run build', () => {
  // Named here, made in beforeAll: a test filter (-t) still runs this body, and it must leave nothing behind.
  const scratch = join(tmpdir(), `cli-mcp-ship-npm-${randomBytes(6).toString('hex')}`);
  const prefix = join(scratch, 'prefix');
  const home = join(scratch, 'home');
  // A clean PATH: the installed bins, this Node, the system; nothing from the checkout or node_modules/.bin.
  const PATH = [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':');
  const env = { PATH, HOME: home, LANG: 'C.UTF-8' };
  let files: string[] = [];

  beforeAll(() => {
    mkdirSync(scratch, { mode: 0o700 });
    const stage = join(scratch, 'stage');
    mkdirSync(stage);
    mkdirSync(home);
    for (const entry of ['package.json', 'README.md', 'LICENSE', 'bin', 'dist', 'native']) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true });
    execFileSync(process.execPath, [join(ROOT, 'scripts/pack-shrinkwrap.mjs'), 'write', stage]);
    const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch, stage], { encoding: 'utf8' })) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = packed[0]!.files.map((f) => f.path);
    execFileSync('npm', ['install', '-g', '--prefix', prefix, join(scratch, packed[0]!.filename), '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=node-pty'], {
      cwd: scratch, stdio: 'pipe', env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` },
    });
    chmodSync(scratch, 0o755);
  }, 300_000);
  // An installed package is thousands of files: removing them on a loaded machine takes a while (a hang bound).
  afterAll(() => rmSync(scratch, { recursive: true, force: true }), 180_000);

  it('packs runtime files only: the bins, the built apps, the shrinkwrap; no sources, tests or test doubles', () => {
    expect(files).toEqual(expect.arrayContaining([
      'bin/cli-mcp-server.js', 'bin/sandbox-agent.cjs', 'bin/sandbox-controller.js', 'dist/mcp-server/main.js',
      'dist/sandbox-controller/main.js', 'dist/sandbox-agent/main.js', 'npm-shrinkwrap.json', 'LICENSE', 'README.md',
      'bin/cli-mcp-egress.js', 'dist/egress-gateway/main.js',
      // The agent's prctl addon as sources: compiled at install, like node-pty.
      'native/non-dumpable/package.json', 'native/non-dumpable/binding.gyp', 'native/non-dumpable/prctl.c',
    ]));
    expect(files.filter((path) => path.startsWith('native/') && path.includes('/build/'))).toEqual([]);
    expect(files.filter((path) => /\.ts$|(^|\/)(test|testing)\//.test(path) || /\.(spec|test)\.js$/.test(path))).toEqual([]);
  });

  it('cli-mcp-server --help runs from the prefix', () => {
    const help = spawnSync('cli-mcp-server', ['--help'], { cwd: home, env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--transport');
  });

  it('cli-mcp-egress --help runs from the prefix', () => {
    const help = spawnSync('cli-mcp-egress', ['--help'], { cwd: home, env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--routes-file');
  });

  it('sandbox-controller --help runs from the prefix', () => {
    const help = spawnSync('sandbox-controller', ['--help'], { cwd: home, env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--warm-pool-size');
  });

  it('serves a stdio session to the SDK client: bash runs in a sandbox and keeps state', async () => {
    const transport = new StdioClientTransport({ command: join(prefix, 'bin/cli-mcp-server'), args: ['--transport', 'stdio', '--session-id', 'npm-pkg'], env, cwd: home, stderr: 'pipe' });
    const client = new Client({ name: 'cli-mcp-npm-test', version: '1.0.0' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport).catch((error: unknown) => {
      throw new Error(`the installed server did not start: ${String(error)}\n${stderr.slice(-2000)}`);
    });
    try {
      const call = async (command: string) =>
        (await client.callTool({ name: 'bash', arguments: { command } }, undefined, { timeout: 60_000 }).catch((error: unknown) => {
          throw new Error(`bash call failed: ${String(error)}\n${stderr.slice(-2000)}`);
        })) as CallToolResult;
      await call('cd /tmp && export MARK=installed');
      const result = await call('echo "$MARK $(pwd)"');
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { stdout: string }).stdout).toBe('installed /tmp');
    } finally {
      await client.close();
    }
  }, 90_000);

  it('sandbox-agent starts from the prefix non-dumpable (its prctl addon compiled at install), answers /health and runs commands in pipe and tty mode', async () => {
    const token = 'a'.repeat(64);
    const agent = spawn('sandbox-agent', [], {
      cwd: home, stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...env, SANDBOX_AGENT_HOST: '127.0.0.1', SANDBOX_AGENT_PORT: '0', SANDBOX_AUTH_TOKEN: token, SANDBOX_READY_FD: '3' },
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        agent.stdio[3]!.on('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
        agent.on('exit', (code) => reject(new Error(`sandbox-agent exited with ${code}`)));
      });
      const base = `http://127.0.0.1:${port}`;
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ nonDumpable: true });
      const exec = async (body: Record<string, unknown>) =>
        (await (await fetch(`${base}/exec`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { stdout: string; exit_code: number };
      expect(await exec({ command: 'echo piped' })).toMatchObject({ stdout: 'piped', exit_code: 0 });
      expect(await exec({ command: 'test -t 1 && echo terminal', tty: true })).toMatchObject({ stdout: 'terminal', exit_code: 0 });
    } finally {
      agent.kill('SIGTERM');
    }
  }, 60_000);

  it('carries the repository lockfile as its shrinkwrap', () => {
    const installed = join(prefix, 'lib/node_modules/cli-mcp-server/npm-shrinkwrap.json');
    expect(JSON.parse(readFileSync(installed, 'utf8')).packages['node_modules/@kubernetes/client-node'].version).toBe('1.4.0');
  });
});
