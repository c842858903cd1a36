import { resolve } from 'node:path';
import { errorText, tlsPairProblem, type FlagReader } from '@cli-mcp/common';
import type { TlsFiles } from './server-config.js';

/**
 * `--tls-cert-file`/`--tls-key-file` (docs/server.md "HTTPS"): both or neither, HTTP transport only, and the pair
 * must load as node:tls loads it, so a wrong file is a start-up error that names its flag rather than a server that
 * listens and fails every handshake. The serving side re-reads them on change (http/tls-reload.ts).
 */
export async function readTlsFiles(flags: FlagReader, cwd: string, readFile: (path: string) => Promise<string>, active: boolean): Promise<TlsFiles | undefined> {
  const cert = flags.string('tls-cert-file');
  const key = flags.string('tls-key-file');
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) {
    flags.fail(`${flags.label('tls-cert-file')} and ${flags.label('tls-key-file')} go together: give both (HTTPS) or neither (HTTP)`);
    return undefined;
  }
  if (!active) {
    flags.fail(`${flags.label('tls-cert-file')} serves HTTPS and needs --transport http (stdio has no listener)`);
    return undefined;
  }
  const files: TlsFiles = { certFile: resolve(cwd, cert), keyFile: resolve(cwd, key) };
  const pems = await Promise.all([readPem(flags, 'tls-cert-file', files.certFile, readFile), readPem(flags, 'tls-key-file', files.keyFile, readFile)]);
  if (pems[0] === undefined || pems[1] === undefined) return undefined;
  const problem = tlsPairProblem(pems[0], pems[1]);
  if (problem !== undefined) flags.fail(`${flags.label('tls-cert-file')} and ${flags.label('tls-key-file')} do not load as a certificate and its key: ${problem}`);
  return files;
}

async function readPem(flags: FlagReader, name: string, path: string, readFile: (path: string) => Promise<string>): Promise<string | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    flags.invalid(name, `cannot read ${path}: ${errorText(error)}`);
    return undefined;
  }
}
