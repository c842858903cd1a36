// The peer the data-plane goals are measured against (issue 11): `mcp-server-commands` 0.5.0, a stdio MCP server
// that runs every command with `exec` (a fresh `/bin/sh -c` per call, no state, no sandbox). It lives in its own
// folder, bench/peer/, pinned by that folder's lockfile and installed there with `npm ci` on first use — never in
// the product's dependency tree (its old SDK 1.9.0 stays out of the root lockfile and of every image).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PEER_DIR = new URL('../peer/', import.meta.url).pathname;
export const PEER_ENTRY = `${PEER_DIR}node_modules/mcp-server-commands/build/index.js`;
export const PEER_TOOL = 'run_command';

/** Installs the pinned peer when missing; resolves to undefined when it is there, else the reason it is not. */
export function ensurePeer() {
  if (existsSync(PEER_ENTRY)) return undefined;
  const result = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'error'], {
    cwd: PEER_DIR,
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (result.status === 0 && existsSync(PEER_ENTRY)) return undefined;
  const detail = (result.stderr || result.error?.message || `npm ci exited ${result.status}`).trim().split('\n').slice(-2).join(' ');
  return `cannot install mcp-server-commands into bench/peer (${detail})`;
}
