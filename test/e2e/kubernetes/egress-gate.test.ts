// End to end, the fail-closed egress gate (C-EGR-6, issue 20 item 3): MCP SDK client → built server
// (`--backend kubernetes --egress-gateway`) → fake API server. With the gateway Service unready and no sandbox
// NetworkPolicy, a new session's first bash call is an MCP tool error naming what is missing, and no pod exists;
// once the gate opens, the session runs.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildSandboxEgressPolicy } from '@cli-mcp/podspec';
import { createEgressService, publishEgressSandboxConfig } from '../../support/egress-service.js';
import { ENDPOINT_SLICES, NETWORK_POLICIES, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, eventually, structuredOf, textOf } from '../mcp/support/mcp-client.js';
import { removeDir, startHttpServer, tempDir, type ServerProcess } from '../mcp/support/server-process.js';
import { kubernetesServerArgs, startInstanceCluster, writeHmacKeyFile } from './support/instance-args.js';

const NAMESPACE = 'cli-mcp';

let cluster: FakeCluster;
let server: ServerProcess;
let dir: string;
const clients: Client[] = [];

beforeAll(async () => {
  cluster = await startInstanceCluster(NAMESPACE);
  publishEgressSandboxConfig(cluster, NAMESPACE, 'oc');
  dir = tempDir('kube-egress');
  const keyFile = writeHmacKeyFile(dir);
  server = await startHttpServer({
    args: kubernetesServerArgs(cluster.kubeconfigPath, NAMESPACE, keyFile, '--egress-gateway', '--eager-acquire=false'),
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await server?.stop();
  await cluster?.stop();
  if (dir) removeDir(dir);
}, 60_000);

describe('cli-mcp-server --backend kubernetes --egress-gateway', () => {
  it('a closed gate: the first call is a tool error naming what is missing, and no pod is created; opened, it runs', async () => {
    const client = await connectHttpClient(server.mcpUrl, 'inv-egress-e2e');
    clients.push(client);
    const refused = await bash(client, 'echo hi');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('egress gateway not enforced: Service oc-egress is missing; Service oc-egress has no ready endpoints; NetworkPolicy oc-egress-sandbox is missing');
    expect(cluster.store.list('pods', NAMESPACE)).toEqual([]);

    cluster.api.create(ENDPOINT_SLICES, NAMESPACE, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: 'oc-egress-e2e', labels: { 'kubernetes.io/service-name': 'oc-egress' } },
      addressType: 'IPv4', endpoints: [{ addresses: ['10.96.7.7'], conditions: { ready: true } }],
    });
    cluster.api.create(NETWORK_POLICIES, NAMESPACE, buildSandboxEgressPolicy({ namespace: NAMESPACE, instanceName: 'oc' }) as unknown as KubeObject);
    createEgressService(cluster, NAMESPACE, 'oc');
    let stdout = '';
    await eventually(async () => {
      const result = await bash(client, 'echo hi');
      stdout = result.isError ? '' : structuredOf(result).stdout;
      return stdout === 'hi';
    }, 'the session runs once the gate is open', 30_000);
    expect(stdout).toBe('hi');
  }, 120_000);
});
