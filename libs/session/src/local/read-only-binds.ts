import { isAbsolute } from 'node:path';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { HostFs } from './host-fs.js';
import { isWithin, RESERVED_PATHS } from './sandbox-view.js';

const FLAG = '--local-ro-bind (env CLI_MCP_LOCAL_RO_BIND)';

export interface ReadOnlyBindRules {
  hostFs: HostFs;
  stateDir: string;
  /** Files no sandbox may read (the HMAC key derives every session's token; the HTTP bearer token). */
  secretPaths: readonly string[];
}

/**
 * Checks the operator's extra read-only paths (C-SEC-1) on their real paths, so a symlink cannot smuggle in what
 * the path itself would not: each must exist, must not be or cover a path the sandbox layout owns, and must not
 * contain the state dir (other sessions' workspaces and sockets, the generated key) or a secret file. Every
 * problem is reported at once, naming the flag. Returns the real paths.
 */
export async function checkReadOnlyBinds(paths: readonly string[], rules: ReadOnlyBindRules): Promise<string[]> {
  const { hostFs } = rules;
  const stateDir = await hostFs.realpath(rules.stateDir).catch(() => rules.stateDir);
  const secrets = await Promise.all(rules.secretPaths.map((path) => hostFs.realpath(path).catch(() => path)));
  const problems: string[] = [];
  const accepted: string[] = [];
  for (const path of paths) {
    if (!isAbsolute(path)) {
      problems.push(`${path} is not an absolute path`);
      continue;
    }
    const real = await hostFs.realpath(path).catch(() => undefined);
    if (real === undefined) {
      problems.push(`${path} does not exist`);
      continue;
    }
    const named = real === path ? path : `${path} (${real})`;
    const reserved = RESERVED_PATHS.find((dir) => (dir === '/' ? real === '/' : isWithin(real, dir)));
    const secret = secrets.find((file) => isWithin(file, real));
    if (reserved !== undefined) problems.push(`${named} is ${reserved === '/' ? 'the whole host' : `the sandbox's own ${reserved}`}`);
    else if (isWithin(stateDir, real) || isWithin(real, stateDir)) problems.push(`${named} would expose the state directory ${stateDir}`);
    else if (secret !== undefined) problems.push(`${named} would expose the secret file ${secret}`);
    else accepted.push(real);
  }
  if (problems.length > 0) {
    throw new SessionError(SessionErrorCode.SandboxUnavailable, `${FLAG}: ${problems.join('; ')}`);
  }
  return accepted;
}
