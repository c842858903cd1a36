/**
 * Leader election of several controllers against the fake API server (C-CTL-1): exactly one acts, a partitioned
 * leader (a real TCP partition between it and the API) stops before its successor starts, a leader killed with
 * SIGKILL (a BUILT controller process, no release) is replaced within the lease duration, and no deficit is ever
 * created twice.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { controllerLeaseName, SESSION_ID_LABEL } from '@cli-mcp/podspec';
import { writeKubeconfig } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { INSTANCE, NAMESPACE, isReadyPod, skipReason } from '../kubernetes/support/kube-stack.js';
import { controllerSkipReason, startControllerProcess } from './support/controller-process.js';
import { startControllerStack, untilCluster, type ControllerStack, type InProcessController } from './support/controller-stack.js';
import { describeWhenReady, itWhenReady } from '../../support/prerequisites.js';

const LEASE = controllerLeaseName(INSTANCE);
const LEASE_MS = 3000; // renew every 1 s, step down after 2 s
let stack: ControllerStack;

const holder = (): string | undefined => (stack.cluster.store.get('leases', NAMESPACE, LEASE)?.['spec'] as { holderIdentity?: string } | undefined)?.holderIdentity;
const leaders = (controllers: InProcessController[]): string[] => controllers.filter((c) => c.runtime.elector.isLeader).map((c) => c.config.identity);
const poolPods = () => stack.pods().filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined && !p.metadata.deletionTimestamp);

/** A TCP proxy to the API server that can be partitioned: nothing passes in either direction, nothing is closed. */
async function partitionableProxy(target: number): Promise<{ port: number; partition(): void; close(): Promise<void> }> {
  let partitioned = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(target, '127.0.0.1');
    sockets.add(upstream);
    client.on('data', (chunk) => void (partitioned || upstream.write(chunk)));
    upstream.on('data', (chunk) => void (partitioned || client.write(chunk)));
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    partition: () => void (partitioned = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describeWhenReady('leader election of several controllers (fake API server)', skipReason, () => {
  beforeAll(async () => {
    stack = await startControllerStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('three controllers: exactly one acts, all name the same holder, and the pool deficit is created exactly once', async () => {
    const creates = stack.cluster.requests.count({ verb: 'create', resource: 'pods' });
    const controllers = [1, 2, 3].map((i) => stack.controller({ identity: `trio-${i}`, poolSize: 3, leaseDurationMs: LEASE_MS }));
    onTestFinished(() => Promise.all(controllers.map((c) => c.stop())).then(() => undefined));
    await untilCluster(stack, () => poolPods().filter(isReadyPod).length === 3, 'three Ready pool pods');
    const leader = leaders(controllers);
    expect(leader).toHaveLength(1);
    expect(holder()).toBe(leader[0]);
    expect(controllers.every((c) => c.runtime.elector.holder === leader[0] || c.runtime.elector.holder === undefined)).toBe(true);
    expect(controllers.filter((c) => c.runtime.status().role === 'follower')).toHaveLength(2);
    expect(stack.cluster.requests.count({ verb: 'create', resource: 'pods' }) - creates).toBe(3);

    // Graceful stop of the leader releases the Lease: another takes over at once and creates nothing new.
    const old = controllers.find((c) => c.config.identity === leader[0])!;
    await old.stop({ release: true });
    await untilCluster(stack, () => holder() !== '' && holder() !== leader[0], 'a new holder');
    const rest = controllers.filter((c) => c !== old);
    await Promise.all(rest.map((c) => c.logger.until('lease holder observed')));
    expect(stack.cluster.requests.count({ verb: 'create', resource: 'pods' }) - creates).toBe(3);
  });

  it('a partitioned leader stops acting before its successor starts', async () => {
    const proxy = await partitionableProxy(stack.cluster.port);
    onTestFinished(() => proxy.close());
    const kubeconfigPath = await writeKubeconfig({ server: `http://127.0.0.1:${proxy.port}`, namespace: NAMESPACE });
    onTestFinished(() => rmSync(dirname(kubeconfigPath), { recursive: true, force: true }));
    const a = stack.controller({ identity: 'island', leaseDurationMs: LEASE_MS, kubeconfigPath });
    onTestFinished(() => a.stop({ release: false }));
    await untilCluster(stack, () => holder() === 'island', 'island to lead');
    await a.logger.until('became leader');
    const b = stack.controller({ identity: 'mainland', leaseDurationMs: LEASE_MS });
    onTestFinished(() => b.stop());
    await b.logger.until('lease holder observed');

    proxy.partition();
    await b.logger.until('became leader', 15_000);
    const stopped = a.logger.lines.find((l) => l.message === 'stopped leading')!;
    const started = b.logger.lines.find((l) => l.message === 'became leader')!;
    expect(stopped).toBeDefined();
    // The ordering is the property (the margins themselves are proved on a fake clock in the elector's spec).
    expect(stopped.at).toBeLessThan(started.at);
    expect(stopped.fields?.reason).toMatch(/renew deadline passed/);
    expect(a.runtime.elector.isLeader).toBe(false);
    expect(holder()).toBe('mainland');
  });

  itWhenReady('a leader killed with SIGKILL (no release) is replaced within the lease duration', controllerSkipReason, async () => {
    const args = [
      '--kubeconfig', stack.cluster.kubeconfigPath, '--namespace', NAMESPACE, '--instance-name', INSTANCE,
      '--sandbox-image', stack.cfg.image, '--kubeconfig-secret', stack.cfg.kubeconfigSecret, '--sandbox-service-account', stack.cfg.serviceAccountName,
      '--lease-duration', '3s', '--log-level', 'debug',
    ];
    const first = await startControllerProcess([...args, '--identity', 'proc-1']);
    onTestFinished(() => first.stop('SIGKILL').then(() => undefined));
    await first.untilLog('became leader');
    const second = await startControllerProcess([...args, '--identity', 'proc-2']);
    onTestFinished(() => second.stop().then(() => undefined));
    await second.untilLog('lease holder observed');
    expect(holder()).toBe('proc-1');

    const killedAt = Date.now();
    await first.stop('SIGKILL');
    await second.untilLog('became leader', 10_000);
    const handover = Date.now() - killedAt;
    expect(holder()).toBe('proc-2');
    // At most a lease duration after the last renewal, plus one follower retry (1 s × jitter 1.2) and scheduling.
    expect(handover).toBeLessThanOrEqual(3000 + 1200 + 500);
    const health = await fetch(`${second.baseUrl}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { info: { election: Record<string, string> } }).info.election).toMatchObject({ role: 'leader', holder: 'proc-2' });
    expect(await second.stop()).toBe(0);
    expect(holder()).toBe(''); // SIGTERM released it
  });
});
