import { FlagReader, readRawFlags, tlsPairProblem } from '@cli-mcp/common';
import { RuntimeCa } from '@cli-mcp/egress';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV_PREFIX, SERVER_FLAGS } from './server-flags.js';
import { readTlsFiles } from './tls-flags.js';

describe(readTlsFiles.name, () => {
  const files: Record<string, string> = {};
  beforeAll(async () => {
    const ca = await RuntimeCa.generate('tls-flags test');
    const one = await ca.mintLeaf('mcp.example', false, 3_600_000);
    // A CA reuses one leaf key for all its leaves: a key of another certificate comes from another CA.
    const two = await (await RuntimeCa.generate('tls-flags other')).mintLeaf('other.example', false, 3_600_000);
    Object.assign(files, { '/tls/tls.crt': one.cert, '/tls/tls.key': one.key, '/tls/other.key': two.key, '/tls/garbage.crt': 'not a certificate\n' });
  });
  const read = async (path: string): Promise<string> => {
    if (files[path] === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    return files[path];
  };
  const run = async (argv: string[], active = true) => {
    const flags = new FlagReader(SERVER_FLAGS, readRawFlags(SERVER_FLAGS, argv, {}, ENV_PREFIX), ENV_PREFIX);
    const tls = await readTlsFiles(flags, '/tls', read, active);
    return { tls, problems: flags.problems };
  };

  it('is plain HTTP without the flags, and HTTPS with a pair that loads (paths resolved against the working directory)', async () => {
    expect(await run([])).toEqual({ tls: undefined, problems: [] });
    expect(await run(['--tls-cert-file', 'tls.crt', '--tls-key-file', '/tls/tls.key'])).toEqual({ tls: { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' }, problems: [] });
  });

  it('refuses half a pair, and the flags with the stdio transport, naming the flags', async () => {
    expect((await run(['--tls-cert-file', '/tls/tls.crt'])).problems).toEqual([
      '--tls-cert-file (env CLI_MCP_TLS_CERT_FILE) and --tls-key-file (env CLI_MCP_TLS_KEY_FILE) go together: give both (HTTPS) or neither (HTTP)',
    ]);
    expect((await run(['--tls-cert-file', '/tls/tls.crt', '--tls-key-file', '/tls/tls.key'], false)).problems).toEqual([
      '--tls-cert-file (env CLI_MCP_TLS_CERT_FILE) serves HTTPS and needs --transport http (stdio has no listener)',
    ]);
  });

  it('refuses a missing file, a file without a certificate and a key of another certificate, each naming what is wrong', async () => {
    expect((await run(['--tls-cert-file', '/tls/none.crt', '--tls-key-file', '/tls/tls.key'])).problems).toEqual([
      expect.stringMatching(/^--tls-cert-file \(env CLI_MCP_TLS_CERT_FILE\): cannot read \/tls\/none\.crt: ENOENT/),
    ]);
    expect((await run(['--tls-cert-file', '/tls/garbage.crt', '--tls-key-file', '/tls/tls.key'])).problems).toEqual([
      expect.stringContaining('do not load as a certificate and its key: the certificate file holds no PEM certificate'),
    ]);
    expect((await run(['--tls-cert-file', '/tls/tls.crt', '--tls-key-file', '/tls/other.key'])).problems).toEqual([
      expect.stringMatching(/do not load as a certificate and its key: .*key values mismatch/),
    ]);
  });

  it('tlsPairProblem is undefined exactly for a matching pair', () => {
    expect(tlsPairProblem(files['/tls/tls.crt']!, files['/tls/tls.key']!)).toBeUndefined();
    expect(tlsPairProblem(files['/tls/tls.crt']!, files['/tls/other.key']!)).toMatch(/mismatch/);
  });
});
