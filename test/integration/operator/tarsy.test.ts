/**
 * issue 21 item 5: a TARSy-style first command through an operator-made instance is served from its pool. The
 * BUILT server runs the instance's Deployment container as the kubelet would start it (args and env resolved by
 * the same code as deployment-args.test.ts), with three stand-ins only: the mounted Secret files are written to
 * a temp dir (the HMAC key and bearer the operator generated, read from the cluster), it listens on 127.0.0.1:0
 * instead of the pod's 0.0.0.0:8080, and the fake cluster's kubeconfig replaces the in-cluster service account.
 * The client is the MCP SDK over streamable HTTP with the bearer and X-Session-ID, as TARSy calls it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Deployment } from '@kubernetes/client-node';
import { SESSION_ID_LABEL } from '@cli-mcp/podspec';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AUTH_TOKEN_PATH, HMAC_KEY_PATH } from '../../../apps/sandbox-controller/src/operator/children/server-args.js';
import { bash, connectHttpClient, structuredOf } from '../../e2e/mcp/support/mcp-client.js';
import { removeDir, startHttpServer, tempDir, type ServerProcess } from '../../e2e/mcp/support/server-process.js';
import { startedWith } from '../deploy/support/effective-settings.js';
import { NAMESPACE, operatorSkipReason, startOperatorStack, type OperatorStack } from './support/operator-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

let stack: OperatorStack;
let server: ServerProcess | undefined;
let client: Client | undefined;
let dir: string;

const secretText = (name: string, key: string) => Buffer.from((stack.cluster.store.get('secrets', NAMESPACE, name)!['data'] as Record<string, string>)[key]!, 'base64').toString();

describeWhenReady('a TARSy-style first command through the instance\'s server', operatorSkipReason, () => {
  beforeAll(async () => {
    stack = await startOperatorStack();
    await stack.operator('op-a');
    dir = tempDir('operator-tarsy');
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await server?.stop();
    await stack?.stop();
    if (dir) removeDir(dir);
  });

  it('is served from the warm pool (a claim, never a create)', async () => {
    stack.seedKubeconfig('tarsy');
    await stack.apply('tarsy', { replicas: 1, sandbox: { warmPoolSize: 1 } });
    await stack.untilCondition('tarsy', 'Ready', 'True');
    const [pooled] = stack.pods('tarsy', 'sandbox');

    const deployment = stack.cluster.store.get('deployments', NAMESPACE, 'cli-mcp-tarsy-server') as unknown as V1Deployment;
    const { argv, env } = startedWith([], deployment, 'cli-mcp-tarsy-server-7c9d4-x');
    const files: Record<string, string> = { [HMAC_KEY_PATH]: secretText('cli-mcp-tarsy-hmac', 'key'), [AUTH_TOKEN_PATH]: secretText('cli-mcp-tarsy-auth', 'token') };
    const args = argv
      .filter((arg) => !arg.startsWith('--address='))
      .map((arg) => {
        const [flag, path] = arg.split('=') as [string, string | undefined];
        if (path === undefined || files[path] === undefined) return arg;
        const local = join(dir, path);
        mkdirSync(join(local, '..'), { recursive: true });
        writeFileSync(local, files[path]!, { mode: 0o600 });
        return `${flag}=${local}`;
      });
    server = await startHttpServer({ args: [...args, `--kubeconfig=${stack.cluster.kubeconfigPath}`], env });

    client = await connectHttpClient(server.mcpUrl, 'tarsy-session-1', { Authorization: `Bearer ${files[AUTH_TOKEN_PATH]}` });
    const result = structuredOf(await bash(client, 'echo investigating && test -n "$KUBECONFIG" && echo kubeconfig-set'));
    expect(result).toMatchObject({ exit_code: 0, stdout: 'investigating\nkubeconfig-set' });
    const claimed = stack.cluster.store.get('pods', NAMESPACE, pooled!.metadata.name!)!;
    expect(claimed.metadata.labels?.[SESSION_ID_LABEL]).toBe('tarsy-session-1');
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/cli_mcp_session_acquire_seconds_count\{path="claim"\} 1\n/);
    expect(metrics).not.toMatch(/cli_mcp_session_acquire_seconds_count\{path="create"\}/);
    // The operator refills the pool after the claim.
    await stack.until(() => stack.pods('tarsy', 'sandbox').filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined).length === 1, 'the pool refilled');
  }, 90_000);
});
