// Starts the built MCP server on an ephemeral loopback port and talks MCP to it over raw HTTP (no SDK in the
// measured path: the numbers are the server's, not a client library's).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const SERVER_BIN = new URL('../../bin/cli-mcp-server.js', import.meta.url).pathname;

export async function startServer(args = []) {
  const dir = mkdtempSync(join(tmpdir(), 'server-bench-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('CLI_MCP_')));
  // The server's log goes to a file, not through this process: reading and parsing its two lines per call here
  // cost the measuring process (also the client) CPU and a wake-up per call on a 2-core machine (issue 11).
  const logPath = join(dir, 'server.log');
  const log = openSync(logPath, 'w');
  const child = spawn(process.execPath, [SERVER_BIN, '--transport', 'http', '--address', '127.0.0.1:0', '--state-dir', join(dir, 'state'), ...args], {
    env,
    stdio: ['ignore', 'ignore', log],
  });
  closeSync(log);
  const url = await listeningUrl(child, logPath);
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.on('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls the log file for the `listening` record (15 s at most); fails with the log's tail if the server exits. */
async function listeningUrl(child, logPath) {
  for (let waited = 0; waited < 15_000; waited += 10) {
    for (const line of readFileSync(logPath, 'utf8').split('\n')) {
      try {
        const entry = JSON.parse(line);
        if (entry.msg === 'listening' && entry.url) return entry.url;
      } catch {
        // not JSON (or a partial last line)
      }
    }
    if (child.exitCode !== null) break;
    await sleep(10);
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not listen: ${readFileSync(logPath, 'utf8').trim().split('\n').slice(-3).join(' | ')}`);
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let nextId = 1;

/** One stateless `tools/call bash` over streamable HTTP; resolves with the JSON-RPC result. */
export function callBash(mcpUrl, sessionId, command) {
  return postMcp(mcpUrl, sessionId, { method: 'tools/call', params: { name: 'bash', arguments: { command } } });
}

/** What every bench client sends with `initialize` (a 2025-era client). */
export const INITIALIZE_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };

/** A 2025-era `initialize` carrying `X-Session-ID` (what a client sends before its first command). */
export function initialize(mcpUrl, sessionId) {
  return postMcp(mcpUrl, sessionId, {
    method: 'initialize',
    params: INITIALIZE_PARAMS,
  });
}

/** One stateless JSON-RPC request over streamable HTTP; resolves with its result, rejects on any error. */
export function postMcp(mcpUrl, sessionId, { method, params, headers = { 'mcp-protocol-version': '2025-06-18' } }) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
  return new Promise((resolve, reject) => {
    const req = request(mcpUrl, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
        'x-session-id': sessionId,
        'content-length': Buffer.byteLength(body),
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        // Streamable HTTP answers either one JSON body or an SSE stream of `data:` events.
        const messages = text.trimStart().startsWith('{') ? [JSON.parse(text)] : text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
        const message = messages.find((m) => 'result' in m || 'error' in m);
        if (!message || message.error || message.result.isError) reject(new Error(`${method} failed: ${text.slice(0, 300)}`));
        else resolve(message.result);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A 2026-07-28 `tools/call bash` as the SDK v2 client sends it: the `_meta` envelope and the routing headers. */
export function callBashModern(mcpUrl, sessionId, command) {
  return postMcp(mcpUrl, sessionId, {
    method: 'tools/call',
    params: { name: 'bash', arguments: { command }, _meta: MODERN_META },
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'bash' },
  });
}

/** `GET` of a server route (e.g. `/metrics`) as text. */
export function getText(url) {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`GET ${url}: ${res.statusCode}`))));
    }).on('error', reject).end();
  });
}

export function closeConnections() {
  agent.destroy();
}
