import { spawnSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bash, connectHttpClient, structuredOf } from './support/mcp-client.js';
import { useHttpServer } from './support/server-process.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const probe = spawnSync('bwrap', ['--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', 'true']);
const problem = probe.error ? `bwrap not installed (${probe.error.message})` : probe.status !== 0 ? `bwrap does not work here: ${probe.stderr}` : undefined;

/** `--local-network none` through the built server and the SDK client: no network in the sandbox, not even the server. */
describeWhenReady('the built server with --local-network none', problem, () => {
  let client: Client;

  const server = useHttpServer({ args: ['--local-network', 'none', '--local-isolation', 'bwrap'] });
  beforeAll(async () => {
    client = await connectHttpClient(server().mcpUrl, 'no-net');
  });
  afterAll(async () => {
    await client?.close();
  });

  it('runs commands with shell state, but cannot reach the MCP server it is served by', async () => {
    const port = new URL(server().mcpUrl).port;
    await bash(client, 'export MARK=ok');
    const result = structuredOf(await bash(client, `echo "$MARK"; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null || echo unreachable`));
    expect(result.stdout).toBe('ok\nunreachable');
  });
});
