// End to end for the Kubernetes backend (issue 4 §4): MCP SDK client → built server (`--backend kubernetes`) →
// fake API server → kubelet simulator → real sandbox agents on 127.0.0.N:8090.
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpAnswerMessages, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, eventually, structuredOf, textOf } from '../mcp/support/mcp-client.js';
import { processesMatching, removeDir, startHttpServer, tempDir, type ServerProcess } from '../mcp/support/server-process.js';
import { kubernetesServerArgs, startInstanceCluster, writeHmacKeyFile } from './support/instance-args.js';
import { SESSION_ID_LABEL as SESSION_LABEL } from '@cli-mcp/podspec';

const NAMESPACE = 'cli-mcp';

let cluster: FakeCluster;
let server: ServerProcess;
let dir: string;
const clients: Client[] = [];

beforeAll(async () => {
  cluster = await startInstanceCluster(NAMESPACE);
  dir = tempDir('kube');
  const keyFile = writeHmacKeyFile(dir);
  // --pending-deprecation: Node 20 then warns where Node 24 does by default (url.parse in the client's node-fetch),
  // so the JSON-only check below has a warning to route on either version.
  server = await startHttpServer({ args: serverArgs(keyFile), env: { NODE_OPTIONS: '--pending-deprecation' } });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await server?.stop();
  await cluster?.stop();
  if (dir) removeDir(dir);
});

/** Flags of one server replica against the fake cluster (every replica shares the HMAC key file). */
function serverArgs(keyFile: string): string[] {
  return kubernetesServerArgs(cluster.kubeconfigPath, NAMESPACE, keyFile);
}

const sessionPods = (sessionId: string) =>
  cluster.store.list('pods', NAMESPACE).filter((pod) => pod.metadata.labels?.[SESSION_LABEL] === sessionId && !pod.metadata.deletionTimestamp);

describe('cli-mcp-server --backend kubernetes', () => {
  it('answers initialize and tools/list without a session and without touching the Kubernetes API', async () => {
    const before = cluster.requests.count();
    const client = await connectHttpClient(server.mcpUrl);
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['bash']);
    expect(cluster.requests.count()).toBe(before);
  });

  it('initialize with X-Session-ID makes the session pod before any command; the command then uses it (C-MCP-13)', async () => {
    const client = await connectHttpClient(server.mcpUrl, 'inv-e2e-eager');
    clients.push(client);
    const metrics = async () => (await fetch(`${server.baseUrl}/metrics`)).text();
    await eventually(async () => /cli_mcp_sandbox_acquisitions_total\{trigger="eager",result="ok"\} 1/.test(await metrics()), 'the eager acquisition');
    expect(sessionPods('inv-e2e-eager')).toHaveLength(1);
    expect(structuredOf(await bash(client, 'echo first')).stdout).toBe('first');
    expect(sessionPods('inv-e2e-eager')).toHaveLength(1);
  });

  it('creates one hardened pod per session, keeps shell state in it, and DELETE removes it', async () => {
    const client = await connectHttpClient(server.mcpUrl, 'inv-e2e-1');
    clients.push(client);
    const first = await bash(client, 'cd /tmp && export MARK=kube-e2e && echo started');
    expect(first.isError).toBeFalsy();
    expect(structuredOf(first).stdout).toBe('started');
    const second = await bash(client, 'echo "$PWD $MARK"');
    expect(structuredOf(second).stdout).toBe('/tmp kube-e2e');
    expect(textOf(second)).toContain('/tmp kube-e2e');

    const pods = sessionPods('inv-e2e-1');
    expect(pods).toHaveLength(1);
    expect((pods[0]!.spec as { automountServiceAccountToken?: boolean }).automountServiceAccountToken).toBe(false);
    expect(cluster.store.list('secrets', NAMESPACE).filter((s) => s.metadata.labels?.[SESSION_LABEL] === 'inv-e2e-1')).toHaveLength(1);

    const response = await fetch(`${server.baseUrl}/sessions/inv-e2e-1`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    await eventually(() => sessionPods('inv-e2e-1').length === 0, 'the session pod to be deleted');
    expect(cluster.store.list('secrets', NAMESPACE).filter((s) => s.metadata.labels?.[SESSION_LABEL] === 'inv-e2e-1')).toHaveLength(0);
  });

  it('reports the API server through /health (namespaced pod list) and exposes Kubernetes request metrics', async () => {
    const health = await fetch(`${server.baseUrl}/health`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/cli_mcp_kube_requests_total\{[^}]*verb="list"[^}]*resource="pods"/);
    const healthList = cluster.requests.entries({ verb: 'list', resource: 'pods' }).filter((r) => r.query.limit === '1');
    expect(healthList.length).toBeGreaterThan(0);
    // Never a cluster-scoped call (C-HTTP-2, C-K8S-10): every resource request names the namespace.
    expect(cluster.requests.entries().filter((r) => r.resource !== undefined).every((r) => r.namespace === NAMESPACE)).toBe(true);
  });

  it('turns an unreachable API server into 503 /health and a clear tool error, and recovers', async () => {
    const down = cluster.faults.add({ pathPattern: /\/api\/v1\/namespaces\/cli-mcp\/pods/, status: 500 });
    try {
      expect((await fetch(`${server.baseUrl}/health`)).status).toBe(503);
      const client = await connectHttpClient(server.mcpUrl, 'inv-e2e-down');
      clients.push(client);
      const result = await bash(client, 'true');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^sandbox exec failed: /);
    } finally {
      down.remove();
    }
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
    const client = await connectHttpClient(server.mcpUrl, 'inv-e2e-down');
    clients.push(client);
    expect(structuredOf(await bash(client, 'echo back')).stdout).toBe('back');
  });

  it('writes only JSON lines to stderr: Node\'s own warnings go through the logger (issue 22 item 7)', () => {
    const lines = server.stderr().split('\n').filter((line) => line !== '');
    const plain = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(plain).toEqual([]);
    // Not vacuous: the Kubernetes client did trigger a deprecation, and it arrived as a record.
    expect(server.logs().filter((line) => line.msg === 'node warning').map((line) => (line.warning as { code?: string }).code)).toContain('DEP0169');
  });
});

describe('cancellation across replicas (C-MCP-9)', () => {
  let replicaB: ServerProcess;

  beforeAll(async () => {
    // A second, independent server process: it shares nothing with the first but the Kubernetes API.
    replicaB = await startHttpServer({ args: serverArgs(join(dir, 'hmac.key')) });
  });

  afterAll(async () => {
    await replicaB?.stop();
  });

  it('stops a command running through replica A when the cancel notification reaches replica B', async () => {
    const client = await connectHttpClient(server.mcpUrl, 'inv-e2e-cancel');
    clients.push(client);
    expect(structuredOf(await bash(client, 'cd /tmp && echo ready')).stdout).toBe('ready');
    const [pod] = sessionPods('inv-e2e-cancel');
    const agentUrl = `http://${(pod!.status as { podIP: string }).podIP}:8090`;

    // A duration of its own: other test files running at the same time start `sleep 30`s too, and a match on one of
    // theirs let the cancel reach the agent before this command did (it then ran its 30 s: seen once in CI).
    const running = rawCall(server.mcpUrl, 'inv-e2e-cancel', 4242, 'sleep 30.4242; echo not-cancelled');
    await eventually(async () => ((await (await fetch(`${agentUrl}/health`)).json()) as { busy: boolean }).busy, 'the command to start');
    // …and its sleep to run: a cancel in the first instant of a command is the agent's own case (its integration
    // tests: queue-cancel.test.ts); this test is about the cancel finding its way across replicas.
    await eventually(() => processesMatching('sleep 30.4242').length > 0, 'the sleep to run');
    const cancel = await fetch(replicaB.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-session-id': 'inv-e2e-cancel' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4242, reason: 'user stop' } }),
    });
    expect(cancel.status).toBe(202);
    const result = await running;
    expect(result.structuredContent).toMatchObject({ exit_code: 130, cancelled: true });
    expect(JSON.stringify(result)).not.toContain('not-cancelled');
    // The session (its shell state) survives the cancel.
    expect(structuredOf(await bash(client, 'pwd')).stdout).toBe('/tmp');
  });

  it('a cancel that reaches replica B before replica A sent the command: the command never runs', async () => {
    const client = await connectHttpClient(server.mcpUrl, 'inv-e2e-early');
    clients.push(client);
    expect(structuredOf(await bash(client, 'echo ready')).stdout).toBe('ready');
    // Made deterministic: B forwards the cancel (and says the sandbox will wait for the call) before A gets the call.
    const cancel = await fetch(replicaB.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-session-id': 'inv-e2e-early' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4343, reason: 'user stop' } }),
    });
    expect(cancel.status).toBe(202);
    const forwarded = () => replicaB.logs().find((line) => line.event === 'cancel' && line.session_id === 'inv-e2e-early');
    await eventually(() => forwarded() !== undefined, 'replica B to forward the cancel');
    expect(forwarded()).toMatchObject({ where: 'sandbox', outcome: 'waiting' });
    const result = await rawCall(server.mcpUrl, 'inv-e2e-early', 4343, 'touch ran.txt; sleep 30.4343');
    expect(result.structuredContent).toMatchObject({ exit_code: 130, cancelled: true });
    expect(structuredOf(await bash(client, 'ls ran.txt 2>&1 || echo absent')).stdout).toContain('absent');
  });
});

/** A raw stateless tools/call with a chosen JSON-RPC id; resolves with the result once the SSE stream ends. */
async function rawCall(mcpUrl: string, sessionId: string, id: number, command: string): Promise<{ structuredContent?: unknown }> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'bash', arguments: { command, timeout: 60 } } }),
  });
  const text = await response.text();
  // SSE, or one application/json message when the call ended within the quick-answer window (issue 11).
  const message = (mcpAnswerMessages(text) as Array<{ id?: number; result?: { structuredContent?: unknown } }>).find((m) => m.id === id);
  if (!message?.result) throw new Error(`no result in ${text.slice(0, 300)}`);
  return message.result;
}
