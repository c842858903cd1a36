// End to end for the sandbox controller (issue 9): MCP SDK client → BUILT server (`--backend kubernetes`) and BUILT
// `sandbox-controller` → fake API server → kubelet simulator → real sandbox agents.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { untilStore, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { controllerSkipReason, runControllerCli, startControllerProcess, type ControllerProcess } from '../../integration/controller/support/controller-process.js';
import { bash, connectHttpClient, structuredOf } from '../mcp/support/mcp-client.js';
import { removeDir, startHttpServer, tempDir, type ServerProcess } from '../mcp/support/server-process.js';
import { instanceArgs, kubernetesServerArgs, startInstanceCluster, writeHmacKeyFile } from './support/instance-args.js';
import { SESSION_ID_LABEL as SESSION_LABEL } from '@cli-mcp/podspec';
import { describeWhenReady } from '../../support/prerequisites.js';

const NAMESPACE = 'cli-mcp';
const KUBE = instanceArgs(NAMESPACE);

let cluster: FakeCluster;
let server: ServerProcess;
let controller: ControllerProcess | undefined;
let dir: string;
const clients: Client[] = [];

const pool = (): KubeObject[] => cluster.store.list('pods', NAMESPACE).filter((p) => p.metadata.labels?.[SESSION_LABEL] === undefined && !p.metadata.deletionTimestamp);
const readyPool = (): KubeObject[] => pool().filter((p) => JSON.stringify(p['status'] ?? {}).includes('"type":"Ready","status":"True"'));
const sessionPods = (id: string): KubeObject[] => cluster.store.list('pods', NAMESPACE).filter((p) => p.metadata.labels?.[SESSION_LABEL] === id && !p.metadata.deletionTimestamp);

const untilCluster = (check: () => boolean, what: string, timeoutMs?: number): Promise<void> => untilStore(cluster.store, check, what, timeoutMs);

async function controllerDetail(): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.baseUrl}/health`);
  expect(response.status).toBe(200); // a missing controller never fails the server's readiness
  return ((await response.json()) as { info: { controller: Record<string, unknown> } }).info.controller;
}

describeWhenReady('sandbox-controller beside cli-mcp-server (built binaries, fake cluster)', controllerSkipReason, () => {
  beforeAll(async () => {
    cluster = await startInstanceCluster(NAMESPACE);
    dir = tempDir('controller');
    const keyFile = writeHmacKeyFile(dir, 'cd');
    server = await startHttpServer({ args: kubernetesServerArgs(cluster.kubeconfigPath, NAMESPACE, keyFile) });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await controller?.stop();
    await server?.stop();
    await cluster?.stop();
    if (dir) removeDir(dir);
  });

  it('refuses bad flags all at once, naming each flag and env var, before anything starts', async () => {
    const run = await runControllerCli(['--warm-pool-size', 'many', '--lease-duration', '1s', '--idle-timeout', 'soon'], { CLI_MCP_MAX_SESSION_AGE: 'forever' });
    expect(run.code).toBe(1);
    for (const name of ['warm-pool-size', 'lease-duration', 'idle-timeout', 'max-session-age', 'namespace', 'sandbox-image']) {
      expect(run.stderr).toContain(`--${name} (env CLI_MCP_${name.toUpperCase().replace(/-/g, '_')})`);
    }
    expect(run.stderr).toContain('[from CLI_MCP_MAX_SESSION_AGE]');
    expect(run.stdout).toBe('');
  });

  it('the server’s /health says "no controller running" until a controller holds the Lease', async () => {
    expect(await controllerDetail()).toMatchObject({ status: 'up', state: 'absent', running: false, message: expect.stringMatching(/^no controller running/) });
    controller = await startControllerProcess(['--kubeconfig', cluster.kubeconfigPath, ...KUBE, '--warm-pool-size', '2', '--idle-timeout', '3s', '--identity', 'e2e-ctl']);
    await controller.untilLog('became leader');
    expect(await controllerDetail()).toMatchObject({ state: 'running', running: true, holder: 'e2e-ctl' });
  });

  it('serves a new session’s first command from the pool (acquire path claim), refills it, and reaps it once abandoned', async () => {
    await untilCluster(() => readyPool().length === 2, 'two Ready pool pods');
    const client = await connectHttpClient(server.mcpUrl, 'e2e-pooled');
    clients.push(client);
    expect(structuredOf(await bash(client, 'echo pooled')).stdout).toBe('pooled');
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    // Served by ONE claim, started by the SDK client's initialize (eager, C-MCP-13) and shared by the command
    // (C-K8S-4): one acquisition, counted once; never an on-demand create.
    expect(metrics).toMatch(/cli_mcp_session_acquire_seconds_count\{path="claim"\} 1\n/);
    expect(metrics).not.toMatch(/cli_mcp_session_acquire_seconds_count\{path="create"\}/);
    expect(metrics).toMatch(/cli_mcp_sandbox_acquisitions_total\{trigger="eager",result="ok"\} 1\n/);
    expect(metrics).not.toContain('trigger="call"');
    expect(server.logs().filter((line) => line.msg === 'claimed unassigned sandbox pod' && line.session_id === 'e2e-pooled')).toHaveLength(1);
    expect(sessionPods('e2e-pooled')).toHaveLength(1);
    expect(sessionPods('e2e-pooled')[0]!.metadata.name).toMatch(/^cli-mcp-oc-pool-[0-9a-f]{10}$/);
    await untilCluster(() => readyPool().length === 2, 'the pool refilled');

    // Abandoned: no DELETE /sessions/{id} ever comes; the 3 s idle timeout removes pod and Secret.
    await untilCluster(() => sessionPods('e2e-pooled').length === 0, 'the idle session reaped', 30_000);
    await untilCluster(() => cluster.store.list('secrets', NAMESPACE).every((s) => s.metadata.labels?.[SESSION_LABEL] !== 'e2e-pooled'), 'its Secret gone');
    const controllerMetrics = await (await fetch(`${controller!.baseUrl}/metrics`)).text();
    expect(controllerMetrics).toMatch(/cli_mcp_controller_gc_deletions_total\{reason="idle"\} 1/);
    expect(controllerMetrics).toMatch(/cli_mcp_controller_claims_observed_total 1/);
    const health = await (await fetch(`${controller!.baseUrl}/health`)).json() as { info: Record<string, Record<string, unknown>> };
    expect(health.info.election).toMatchObject({ role: 'leader', holder: 'e2e-ctl' });
    expect(health.info.pool).toMatchObject({ desired: 2, ready: 2, shortfall: false });
  });

  it('releases the Lease on SIGTERM, and the server’s /health notices', async () => {
    expect(await controller!.stop()).toBe(0);
    controller = undefined;
    expect(await controllerDetail()).toMatchObject({ state: 'released', running: false, message: expect.stringMatching(/^no controller running: the lease was released/) });
  });

  it('answers /health 503 with the reason while the API server is unreachable, never exits, and recovers by itself', async () => {
    const down = cluster.faults.add({ pathPattern: /^\/(api|apis)\//, status: 503 });
    const ctl = await startControllerProcess(['--kubeconfig', cluster.kubeconfigPath, ...KUBE, '--identity', 'e2e-outage', '--lease-duration', '3s']);
    try {
      await ctl.untilLog('pod list/watch failed; retrying with back-off');
      const unhealthy = await fetch(`${ctl.baseUrl}/health`);
      expect(unhealthy.status).toBe(503);
      const body = (await unhealthy.json()) as { error: { kubernetes: { message: string } } };
      expect(body.error.kubernetes.message).toBe('pod list/watch failing: the server is currently unable to handle the request');
      expect((await fetch(`${ctl.baseUrl}/live`)).status).toBe(200);
      down.remove();
      await ctl.untilLog('became leader', 45_000);
      await ctl.untilLog('pod list/watch restored', 45_000);
      expect((await fetch(`${ctl.baseUrl}/health`)).status).toBe(200);
      expect(ctl.child.exitCode).toBeNull();
    } finally {
      down.remove();
      expect(await ctl.stop()).toBe(0);
    }
  });
});
