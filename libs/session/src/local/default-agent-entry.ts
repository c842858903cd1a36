import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built (bundled, see scripts/bundle-agent.mjs) agent next to this lib: compiled, this file is `dist/libs/session/src/local/…js`, so four levels up
 * is `dist/`; run from source (tests), four levels up is the repository root, whose build output is `dist/`; inside
 * the server's bundle (scripts/bundle-nest-app.mjs) it is a chunk of `dist/mcp-server/`, a sibling of the agent's folder.
 */
export function defaultAgentEntry(moduleUrl: string = import.meta.url): string {
  const here = dirname(fileURLToPath(moduleUrl));
  if (basename(here) === 'mcp-server' && basename(dirname(here)) === 'dist') return join(dirname(here), 'sandbox-agent/main.js');
  const root = resolve(here, '../../../..');
  const fromSource = /\.[cm]?ts$/.test(fileURLToPath(moduleUrl));
  return join(root, fromSource ? 'dist' : '', 'sandbox-agent/main.js');
}
