import { spawnSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { bash, connectHttpClient, eventually, structuredOf, textOf } from './support/mcp-client.js';
import { descendantsOf, isAgentCommandLine, useHttpServer } from './support/server-process.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const bwrap = spawnSync('bwrap', ['--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', 'true']);
const slirp = spawnSync('slirp4netns', ['--version']);
const problem = bwrap.error || bwrap.status !== 0 ? `bwrap does not work here: ${bwrap.error?.message ?? bwrap.stderr}`
  : slirp.status !== 0 ? 'slirp4netns is not installed (Debian package slirp4netns)' : undefined;

/**
 * The default `--local-network auto` through the built server and the SDK client, where slirp4netns exists: a
 * session cannot reach the server it is served by — so never another session through it (C-SEC-2) — and
 * `/health` says what isolation is in force (C-SEC-4).
 */
describeWhenReady('the built server with the default isolated network', problem, () => {
  let client: Client;
  const server = useHttpServer();
  beforeAll(async () => {
    client = await connectHttpClient(server().mcpUrl, 'isolated-a');
  });
  afterAll(async () => {
    await client?.close();
  });

  it('runs commands with shell state, but a session cannot call /mcp as another session', async () => {
    const port = new URL(server().mcpUrl).port;
    await bash(client, 'export MARK=ok');
    const attack = `curl -s --max-time 5 -X POST http://127.0.0.1:${port}/mcp -H 'X-Session-ID: isolated-b' -H 'Content-Type: application/json' ` +
      `-H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'; echo "curl=$?"`;
    const result = structuredOf(await bash(client, `echo "$MARK"; ${attack}`));
    expect(result.stdout).toBe('ok\ncurl=7');
  });

  it('after an agent crash says the shell state is gone and the files were kept, and the next command finds just that', async () => {
    await bash(client, 'echo kept > crash-proof.txt; export GONE=yes');
    const agentPids = () => descendantsOf(server().pid).filter((pid) => {
      try {
        return isAgentCommandLine(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });
    const [agent] = agentPids();
    expect(agent).toBeDefined();
    process.kill(agent!, 'SIGKILL');
    await eventually(() => !agentPids().includes(agent!), 'the agent to be gone');
    // A command sent in the instant between the crash and the server seeing it meets the dead agent's socket and
    // gets a transport error (C-K8S-7: never a blind retry); what this test is about starts once the server saw it.
    await eventually(() => server().logs().some((entry) => String(entry.msg).startsWith('sandbox agent exited')), 'the server to see the crash');
    const after = await bash(client, 'cat crash-proof.txt; echo "gone=${GONE:-}"');
    expect(after.structuredContent, textOf(after)).toMatchObject({ stdout: 'kept\ngone=', sandbox_recreated: true, sandbox_files_kept: true });
    expect(textOf(after)).toContain('shell state from earlier commands (working directory, variables, functions, aliases, background jobs) is gone; files in /workspace were kept');
  });

  it('reports the isolation in force in /health', async () => {
    const health = (await (await fetch(`${server().baseUrl}/health`)).json()) as { info: { sessions: Record<string, unknown> } };
    expect(health).toMatchObject({ status: 'ok', info: { sessions: { status: 'up', isolation: 'bwrap', network: 'isolated' } } });
    expect(health.info.sessions).not.toHaveProperty('warnings');
  });
});
