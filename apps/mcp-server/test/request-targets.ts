import type { RawRequest } from '@cli-mcp/testing';

/**
 * Request targets that a router may normalise to a protected route (C-HTTP-5): the attacker's spellings of
 * `/mcp` and `/sessions/<id>`. `{port}` is replaced with the listening port.
 */
export const MCP_SPELLINGS = [
  '/mcp',
  '/mcp/',
  '/mcp//',
  '//mcp',
  '///mcp',
  '/%6Dcp',
  '/%6dcp',
  '/%6D%63%70',
  '/m%43p',
  '/./mcp',
  '/mcp/.',
  '/x/../mcp',
  '/mcp/x/..',
  '/%2e/mcp',
  '/%2E%2E/mcp',
  'http://127.0.0.1:{port}/mcp',
  'HTTP://127.0.0.1:{port}/mcp',
  'http://evil.example/mcp',
  'http://127.0.0.1:{port}/%6Dcp/',
  '/MCP',
  '/Mcp',
  '/mcp?x=1',
  '/mcp?',
  '/mcp?%00',
  '/mcp#fragment',
  '/mcp/#',
  '/mcp;x=1',
  '/mcp;',
  '/mcp%2F',
  '/%2Fmcp',
  '/mcp%3Fx=1',
  '/mcp%23x',
  '/mcp%00',
  '/mcp%20',
  '/mcp ',
  '*',
];

export const SESSION_SPELLINGS = [
  '/sessions/victim',
  '/sessions/victim/',
  '/sessions//victim',
  '//sessions/victim',
  '/%73essions/victim',
  '/%73ESSIONS/victim',
  '/sessions/%76ictim',
  '/%73%65%73%73%69%6f%6e%73/victim',
  '/./sessions/victim',
  '/sessions/./victim',
  '/sessions/x/../victim',
  '/x/../sessions/victim',
  'http://127.0.0.1:{port}/sessions/victim',
  'http://127.0.0.1:{port}/%73essions/victim',
  '/SESSIONS/victim',
  '/Sessions/victim',
  '/sessions/victim?x=1',
  '/sessions/victim#f',
  '/sessions/victim;x=1',
  '/sessions%2Fvictim',
  '/sessions/victim%2F',
  '/sessions/victim%2Fmore',
  '/sessions/',
  '/sessions',
  '/sessions/a/b',
];

/** Every method C-HTTP-5 names, plus a WebDAV method Node's parser accepts and an unknown token it refuses. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'BREW'];

/** Handlers reachable without the bearer (`@OpenRoute()`); everything else needs it. */
export const OPEN_HANDLERS = new Set(['HealthController.live', 'HealthController.check', 'MetricsController.scrape']);

/** A `bash` call to session `victim`: what an attacker who got past the boundary would run. */
const BASH_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo owned' } } });

/** An MCP request (headers and a `bash` call body) to `target` as raw bytes; `{port}` in the target is filled in. */
export function attackRequest(port: number, method: string, target: string, authorization?: string): RawRequest {
  const headers: Array<[string, string]> = [
    ['Host', `127.0.0.1:${port}`],
    ['Content-Type', 'application/json'],
    ['Accept', 'application/json, text/event-stream'],
    ['X-Session-ID', 'victim'],
  ];
  if (authorization !== undefined) headers.push(['Authorization', authorization]);
  return { method, target: target.replace('{port}', String(port)), headers, body: BASH_CALL };
}
