import { AUTH_TOKEN_ENV, SESSION_ID_LABEL, SPEC_HASH_ANNOTATION, isWarmPodName, sandboxSpecHash } from '@cli-mcp/podspec';
import { KubeError } from '@cli-mcp/kube';
import { FakeClock } from '@cli-mcp/testing';
import { describe, expect, it } from 'vitest';
import { FakeControllerCluster } from '../../test/fake-controller-cluster.js';
import { claim, countingBytes, crashLooping, metrics, podConfig, poolPod, recordingLogger, settle, WALL_START } from '../../test/fixtures.js';
import { ReconcileLoop } from '../reconcile/reconcile-loop.js';
import { PoolReconciler, type PoolReconcilerOptions } from './pool-reconciler.js';
import type { EgressGateVerdict } from '@cli-mcp/kube';

function setup(options: { desired?: number; leader?: () => boolean; image?: string; egressGate?: PoolReconcilerOptions['egressGate']; egressGateway?: boolean } = {}) {
  const cluster = new FakeControllerCluster();
  const clock = new FakeClock();
  const logger = recordingLogger();
  const { metrics: m, registry } = metrics();
  const cfg = podConfig({ image: options.image, egressGateway: options.egressGateway });
  const pool = new PoolReconciler({
    api: cluster,
    informer: cluster.informer,
    podConfig: cfg,
    desired: options.desired ?? 3,
    clock,
    wallClock: () => new Date(WALL_START + clock.now()),
    randomBytes: countingBytes(),
    random: () => 0.5,
    metrics: m,
    logger,
    writeTimeoutMs: 4000,
    isLeader: options.leader ?? (() => true),
    egressGate: options.egressGate,
  });
  const pass = () => pool.pass(new AbortController().signal);
  const poolPods = () => [...cluster.pods.values()].filter((p) => p.metadata?.labels?.[SESSION_ID_LABEL] === undefined && !p.metadata?.deletionTimestamp);
  return { cluster, clock, logger, registry, pool, pass, poolPods, cfg };
}

describe(PoolReconciler.name, () => {
  it('pauses the refill while the egress gate is shut, says why, and resumes once it opens (C-EGR-6)', async () => {
    let verdict: EgressGateVerdict = { open: false, reasons: ['Service oc-egress has no ready endpoints'] };
    const { cluster, pass, pool, logger, poolPods } = setup({ desired: 2, egressGate: { check: async () => verdict } });
    expect(await pass()).toEqual({ requeueAfterMs: 2_000 });
    expect(cluster.callsOf('createPod')).toHaveLength(0);
    expect(pool.egressPaused).toBe('egress gateway not enforced: Service oc-egress has no ready endpoints');
    expect(JSON.stringify(logger.lines)).toContain('pool refill paused');
    verdict = { open: true };
    await pass();
    expect(poolPods()).toHaveLength(2);
    expect(pool.egressPaused).toBeUndefined();
  });

  it('without DNS, the leader reads the gateway address at every pass and replaces pool pods of an older one; a follower reads nothing (C-EGR-1)', async () => {
    let verdict: EgressGateVerdict = { open: true, proxyAddress: '10.96.0.10' };
    let checks = 0;
    let leader = true;
    const { cluster, pass, poolPods } = setup({ desired: 2, egressGateway: true, leader: () => leader, egressGate: { check: async () => (checks++, verdict) } });
    await pass();
    const address = () => poolPods().map((p) => p.spec!.hostAliases?.[0]?.ip);
    expect(address()).toEqual(['10.96.0.10', '10.96.0.10']);
    const first = poolPods().map((p) => p.metadata!.name!);
    // A re-created Service: the pool is full, so no refill would ask the gate; the pass itself does.
    verdict = { open: true, proxyAddress: '10.96.0.11' };
    await pass();
    expect(cluster.callsOf('deletePod')).toHaveLength(2);
    for (const name of first) cluster.finishTermination(name);
    await pass();
    expect(address()).toEqual(['10.96.0.11', '10.96.0.11']);
    leader = false;
    const before = checks;
    await pass();
    expect(checks).toBe(before);
  });

  it('creates the deficit with the server’s builder: pool names, no session label, no token, the spec hash', async () => {
    const { cluster, pass, poolPods, cfg } = setup({ desired: 3 });
    await pass();
    expect(poolPods()).toHaveLength(3);
    for (const pod of poolPods()) {
      expect(isWarmPodName(pod.metadata!.name!)).toBe(true);
      expect(pod.metadata!.annotations![SPEC_HASH_ANNOTATION]).toBe(sandboxSpecHash(cfg));
      expect(JSON.stringify(pod.spec)).not.toContain(AUTH_TOKEN_ENV);
    }
    expect(cluster.callsOf('createPod')).toHaveLength(3);
  });

  it('never creates twice for one deficit, even while the informer has not seen its creates yet', async () => {
    const { cluster, pass } = setup({ desired: 2 });
    cluster.informer.lagging = true;
    await pass();
    await pass();
    await pass();
    expect(cluster.callsOf('createPod')).toHaveLength(2);
    cluster.informer.deliver();
    await pass();
    expect(cluster.callsOf('createPod')).toHaveLength(2);
  });

  it('refills a claim from the watch event alone, without any timer', async () => {
    const { cluster, pass, clock, pool, poolPods } = setup({ desired: 2 });
    await pass();
    const loop = new ReconcileLoop({ name: 'pool', pass: (s) => pool.pass(s), clock, random: () => 0.5, logger: recordingLogger() });
    cluster.informer.onChange(() => loop.trigger());
    loop.start(new AbortController().signal);
    await settle();
    const first = poolPods()[0]!.metadata!.name!;
    cluster.mutatePod(first, (pod) => claim(pod, 'inv-1', new Date(WALL_START)));
    await settle();
    expect(poolPods()).toHaveLength(2);
    expect(cluster.callsOf('createPod')).toHaveLength(3);
    expect(clock.pendingTimers).toBe(0); // nothing was waiting on a tick
  });

  it('trims the surplus oldest first: re-reads each pod and deletes it with the re-read uid and resourceVersion', async () => {
    const { cluster, pass, poolPods } = setup({ desired: 1 });
    for (const [name, second] of [['p-new', 30], ['p-old', 10], ['p-mid', 20]] as const) cluster.addPod(poolPod(name, podConfig(), new Date(WALL_START + second * 1000)));
    cluster.mutatePod('p-old', (pod) => (pod.status = { phase: 'Pending' })); // a kubelet write after the list
    await pass();
    expect(cluster.callsOf('getPod').map((c) => c.name)).toEqual(['p-old', 'p-mid']);
    expect(cluster.callsOf('deletePod')).toEqual([
      { method: 'deletePod', name: 'p-old', preconditions: { uid: cluster.pods.get('p-old')!.metadata!.uid, resourceVersion: expect.any(String) } },
      { method: 'deletePod', name: 'p-mid', preconditions: { uid: cluster.pods.get('p-mid')!.metadata!.uid, resourceVersion: expect.any(String) } },
    ]);
    expect(poolPods().map((p) => p.metadata!.name)).toEqual(['p-new']);
  });

  it('does not trim a pod a claim labelled before the re-read', async () => {
    const { cluster, pass } = setup({ desired: 1 });
    cluster.addPod(poolPod('p-old', podConfig(), new Date(WALL_START)));
    cluster.addPod(poolPod('p-new', podConfig(), new Date(WALL_START + 1000)));
    cluster.informer.lagging = true; // the informer still shows p-old unassigned
    cluster.hooks.getPod = (name) => void (name === 'p-old' && cluster.mutatePod(name, (pod) => claim(pod, 'inv-7', new Date(WALL_START))));
    await pass();
    expect(cluster.callsOf('deletePod')).toEqual([]);
    expect(cluster.pods.get('p-old')!.metadata!.labels![SESSION_ID_LABEL]).toBe('inv-7');
  });

  it('does not delete a pod claimed between its re-read and its delete: the precondition fails, not luck', async () => {
    const { cluster, pass, logger } = setup({ desired: 1 });
    cluster.addPod(poolPod('p-old', podConfig(), new Date(WALL_START)));
    cluster.addPod(poolPod('p-new', podConfig(), new Date(WALL_START + 1000)));
    cluster.informer.lagging = true;
    // The claim lands exactly after the controller re-read the pod and before its delete arrives.
    cluster.hooks.deletePod = (name) => void cluster.mutatePod(name, (pod) => claim(pod, 'inv-8', new Date(WALL_START)));
    await pass();
    expect(cluster.callsOf('deletePod').map((c) => c.name)).toEqual(['p-old']);
    const survivor = cluster.pods.get('p-old')!;
    expect(survivor.metadata!.deletionTimestamp).toBeUndefined();
    expect(survivor.metadata!.labels![SESSION_ID_LABEL]).toBe('inv-8');
    expect(logger.lines.some((l) => l.message === 'pool pod changed before its delete; kept')).toBe(true);
  });

  it('recreates unassigned pods of an older spec and never touches assigned ones', async () => {
    const oldCfg = podConfig({ image: 'quay.io/example/sandbox:0' });
    const { cluster, pass, poolPods } = setup({ desired: 2 });
    cluster.addPod(poolPod('old-1', oldCfg));
    cluster.addPod(poolPod('old-2', oldCfg));
    const assigned = poolPod('old-assigned', oldCfg);
    claim(assigned, 'inv-1', new Date(WALL_START));
    cluster.addPod(assigned);
    await pass();
    expect(cluster.callsOf('deletePod').map((c) => c.name).sort()).toEqual(['old-1', 'old-2']);
    expect(cluster.callsOf('createPod')).toHaveLength(0); // the stale ones still terminate: they hold their slots
    cluster.finishTermination('old-1');
    cluster.finishTermination('old-2');
    await pass();
    expect(poolPods()).toHaveLength(2);
    expect(poolPods().every((p) => p.metadata!.annotations![SPEC_HASH_ANNOTATION] === sandboxSpecHash(podConfig()))).toBe(true);
    expect(cluster.pods.get('old-assigned')!.metadata!.deletionTimestamp).toBeUndefined();
  });

  it('replaces Failed and crash-looping pool pods at once (a new one is created before the broken one is gone)', async () => {
    const { cluster, pass } = setup({ desired: 2 });
    const failed = poolPod('failed');
    failed.status = { phase: 'Failed' };
    cluster.addPod(failed);
    const looping = poolPod('looping');
    crashLooping(looping);
    cluster.addPod(looping);
    await pass();
    expect(cluster.callsOf('deletePod').map((c) => c.name).sort()).toEqual(['failed', 'looping']);
    expect(cluster.callsOf('createPod')).toHaveLength(2);
  });

  it('logs a rejected create once, counts it, and backs off instead of retrying every pass', async () => {
    const { cluster, pass, clock, logger, registry } = setup({ desired: 2 });
    cluster.hooks.createPod = () => {
      throw new KubeError('admission webhook "policy.example" denied the request: images from quay.io/example are not allowed', 403, 'Forbidden');
    };
    const first = await pass();
    expect(cluster.callsOf('createPod')).toHaveLength(1); // the first failure stops the others
    expect(first.requeueAfterMs).toBe(5000);
    for (let i = 0; i < 5; i++) await pass();
    expect(cluster.callsOf('createPod')).toHaveLength(1);
    clock.advance(5000);
    expect((await pass()).requeueAfterMs).toBe(10_000); // one probe, then a longer back-off
    expect(cluster.callsOf('createPod')).toHaveLength(2);
    expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(logger.lines.find((l) => l.level === 'error')?.fields).toMatchObject({ reason: 'rejected', error: expect.stringContaining('denied the request') });
    const text = await registry.metrics();
    expect(text).toContain('cli_mcp_controller_pool_creations_total{outcome="rejected"} 2');
    expect(text).toContain('cli_mcp_controller_reconcile_errors_total{reconciler="pool",reason="rejected"} 2');
    delete cluster.hooks.createPod;
    clock.advance(10_000);
    await pass();
    expect(cluster.pods.size).toBe(2);
    expect(logger.lines.some((l) => l.message === 'pool pod creation works again')).toBe(true);
  });

  it('writes nothing unless it leads', async () => {
    let leader = false;
    const { cluster, pass } = setup({ desired: 2, leader: () => leader });
    cluster.addPod(poolPod('a'));
    cluster.addPod(poolPod('b'));
    cluster.addPod(poolPod('c'));
    await pass();
    expect(cluster.calls).toEqual([]);
    leader = true;
    await pass();
    expect(cluster.callsOf('deletePod')).toHaveLength(1);
  });

  it('waits for the informer’s first list before deciding anything', async () => {
    const { cluster, pass } = setup({ desired: 2 });
    cluster.informer.synced = false;
    await pass();
    expect(cluster.calls).toEqual([]);
  });
});

describe('ReconcileLoop with a failing pass', () => {
  it('backs off (jittered, growing) and recovers', async () => {
    const clock = new FakeClock();
    let failures = 2;
    const runs: number[] = [];
    const loop = new ReconcileLoop({
      name: 'test',
      clock,
      random: () => 0.5,
      logger: recordingLogger(),
      pass: async () => {
        runs.push(clock.now());
        if (failures-- > 0) throw new Error('boom');
        return {};
      },
    });
    loop.start(new AbortController().signal);
    await settle();
    clock.advance(1000);
    await settle();
    clock.advance(2000);
    await settle();
    expect(runs.map((t) => t - runs[0]!)).toEqual([0, 1000, 3000]);
    expect(clock.pendingTimers).toBe(0);
  });
});
