import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_NODE_FLAGS } from '@cli-mcp/common';
import type { AgentCommand } from './agent-process.js';

/** Path of the built sandbox agent, relative to the repository root. */
export const AGENT_ENTRY = 'dist/sandbox-agent/main.js';

/** The repository root: the nearest ancestor of this module (source or dist) holding `nest-cli.json`. */
export function repoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'nest-cli.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

/** `node <agent flags> <repo>/dist/sandbox-agent/main.js` (the bundled agent, or another built entry), as the image runs it. */
export function builtAgentCommand(entry: string = join(repoRoot(), AGENT_ENTRY)): AgentCommand {
  return { command: process.execPath, args: [...AGENT_NODE_FLAGS, entry] };
}

/** Whether the built agent entry exists. */
export function builtAgentExists(entry: string = join(repoRoot(), AGENT_ENTRY)): boolean {
  return existsSync(entry);
}

// A tiny stand-in for the sandbox agent (same env contract: SANDBOX_AGENT_HOST/PORT, SANDBOX_AUTH_TOKEN,
// SANDBOX_WORKDIR, SANDBOX_EXIT_WITH_PARENT): GET /health, POST /assign, POST /exec (bash -c, no persistence).
const STAND_IN_SOURCE = String.raw`
const http = require('node:http');
const { spawn } = require('node:child_process');
const env = process.env;
let token = env.SANDBOX_AUTH_TOKEN || '';
const send = (res, code, body) => { res.writeHead(code, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/health') return send(res, 200, { status: 'ok' });
    let parsed = {};
    try { parsed = body ? JSON.parse(body) : {}; } catch { return send(res, 400, { error: 'invalid request body', code: 'invalid_body' }); }
    if (req.method === 'POST' && req.url === '/assign') {
      if (token) return send(res, 409, { error: 'already assigned', code: 'already_assigned' });
      if (typeof parsed.token !== 'string' || !parsed.token) return send(res, 400, { error: 'token is required', code: 'token_required' });
      token = parsed.token;
      return send(res, 200, { status: 'assigned' });
    }
    if (req.method === 'POST' && req.url === '/exec') {
      if (!token) return send(res, 503, { error: 'agent not assigned', code: 'not_assigned' });
      if (req.headers.authorization !== 'Bearer ' + token) return send(res, 401, { error: 'unauthorized', code: 'unauthorized' });
      if (typeof parsed.command !== 'string' || !parsed.command) return send(res, 400, { error: 'command is required', code: 'command_required' });
      const started = Date.now();
      const child = spawn('bash', ['-c', parsed.command], { cwd: env.SANDBOX_WORKDIR || process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '', err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.on('close', (code) => send(res, 200, { stdout: out.replace(/\n+$/, ''), stderr: err.replace(/\n+$/, ''), exit_code: code ?? 137,
        duration_ms: Date.now() - started, timed_out: false, cancelled: false, truncated: false, state_reset: false,
        stdout_bytes: Buffer.byteLength(out), stderr_bytes: Buffer.byteLength(err) }));
      return;
    }
    send(res, 404, { error: 'not found', code: 'not_found' });
  });
});
server.listen(Number(env.SANDBOX_AGENT_PORT || 8090), env.SANDBOX_AGENT_HOST || '0.0.0.0');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
if (env.SANDBOX_EXIT_WITH_PARENT === '1') { const parent = process.ppid; setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 500).unref(); }
`;

/**
 * A stand-in agent started with `node -e`: serves `/health`, `/assign` and a stateless `/exec`. For developing
 * against the fake cluster when the real agent is not built; the default is always the real agent.
 */
export function standInAgentCommand(): AgentCommand {
  return { command: process.execPath, args: ['-e', STAND_IN_SOURCE] };
}
