import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RuntimeCa } from '@cli-mcp/egress';
import { eventually, mcpAnswerMessages } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, removeDir, startHttpServer, type ServerProcess } from './support/server-process.js';

const run = promisify(execFile);

/** `--tls-cert-file`/`--tls-key-file` (docs/server.md "HTTPS"), with curl as a client that shares no code with us. */
describe('HTTPS with --tls-cert-file and --tls-key-file', () => {
  let dir: string;
  let server: ServerProcess;
  const file = (name: string): string => join(dir, name);
  /** Writes a file the way a Secret volume changes: a new file renamed over the old one. */
  const replace = (name: string, text: string): void => {
    writeFileSync(file(`${name}.new`), text, { mode: 0o600 });
    renameSync(file(`${name}.new`), file(name));
  };
  async function issue(caFile: string, name: string): Promise<void> {
    const ca = await RuntimeCa.generate(name);
    const leaf = await ca.mintLeaf('127.0.0.1', true, 3_600_000);
    writeFileSync(file(caFile), ca.certPem);
    replace('tls.key', leaf.key);
    replace('tls.crt', leaf.cert);
  }
  /** One bash call by curl over HTTPS, trusting `caFile`; rejects when curl fails (e.g. exit 60: untrusted). */
  async function call(caFile: string | undefined, command: string, url = server.mcpUrl): Promise<string> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash', arguments: { command } } });
    const { stdout } = await run('curl', [
      '-sS', '--fail-with-body', '-N', ...(caFile ? ['--cacert', file(caFile)] : []), '-X', 'POST', url,
      '-H', 'content-type: application/json', '-H', 'accept: application/json, text/event-stream', '-H', 'x-session-id: tls-session', '-d', body,
    ], { timeout: 60_000 });
    const [message] = mcpAnswerMessages(stdout) as Array<{ result: { structuredContent: { stdout: string } } }>;
    return message!.result.structuredContent.stdout;
  }

  beforeAll(async () => {
    // Not under /tmp or /var/tmp (the sandbox has its own; --local-ro-bind refuses them): the checkout's ignored tmp/.
    mkdirSync(join(REPO_ROOT, 'tmp'), { recursive: true });
    dir = mkdtempSync(join(REPO_ROOT, 'tmp', 'e2e-tls-'));
    await issue('ca.pem', 'e2e tls first');
    server = await startHttpServer({ args: ['--tls-cert-file', file('tls.crt'), '--tls-key-file', file('tls.key')] });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    removeDir(dir);
  }, 120_000);

  it('serves MCP over HTTPS to a client that trusts its CA, and logs what it serves', async () => {
    expect(server.mcpUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.logs().find((line) => line.msg === 'listening')).toMatchObject({ tls: { san: 'IP Address:127.0.0.1', not_after: expect.stringMatching(/^\d{4}-/) } });
    expect(await call('ca.pem', 'echo over-tls')).toBe('over-tls');
    // Without the CA curl refuses the certificate (exit 60); plain HTTP on the port gets no MCP answer.
    await expect(call(undefined, 'echo untrusted')).rejects.toThrow(/certificate/);
    await expect(call(undefined, 'echo plain', server.mcpUrl.replace('https:', 'http:'))).rejects.toThrow();
  });

  it('is a secret file like the other keys: a --local-ro-bind that would show it to sandboxes is refused at start', async () => {
    const refused = startHttpServer({ args: ['--tls-cert-file', file('tls.crt'), '--tls-key-file', file('tls.key'), '--local-ro-bind', dir] });
    await expect(refused).rejects.toThrow(`--local-ro-bind (env CLI_MCP_LOCAL_RO_BIND): ${dir} would expose the secret file ${file('tls.key')}`);
  }, 120_000);

  it('serves a rotated pair to new connections without a restart; a pair that does not load is logged and the last good one kept', async () => {
    await issue('ca-2.pem', 'e2e tls second');
    await eventually(() => call('ca-2.pem', 'echo rotated').then((out) => out === 'rotated', () => false), 'the rotated certificate is served', 30_000);
    await expect(call('ca.pem', 'echo old')).rejects.toThrow(/certificate/);
    expect(server.logs().filter((line) => line.msg === 'TLS certificate reloaded').length).toBeGreaterThanOrEqual(1);

    // A key of another certificate: refused, logged, and the server still serves the rotated pair.
    const stray = await (await RuntimeCa.generate('e2e tls stray')).mintLeaf('127.0.0.1', true, 3_600_000);
    replace('tls.key', stray.key);
    await eventually(() => server.logs().some((line) => String(line.msg).includes('do not load as a certificate and its key')), 'the bad pair is logged', 30_000);
    expect(await call('ca-2.pem', 'echo still-served')).toBe('still-served');
  });
});
