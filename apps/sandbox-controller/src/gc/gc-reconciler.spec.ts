import type { V1Secret } from '@kubernetes/client-node';
import { CLAIMED_AT_ANNOTATION, LAST_ACTIVITY_ANNOTATION, authSecretName, formatTimestamp, sandboxLabels } from '@cli-mcp/podspec';
import { KubeError } from '@cli-mcp/kube';
import { FakeClock } from '@cli-mcp/testing';
import { describe, expect, it } from 'vitest';
import { FakeControllerCluster } from '../../test/fake-controller-cluster.js';
import { claim, INSTANCE, metrics, podConfig, poolPod, recordingLogger, sessionPod, settle, WALL_START } from '../../test/fixtures.js';
import { ReconcileLoop } from '../reconcile/reconcile-loop.js';
import { GcReconciler, ORPHAN_SWEEP_INTERVAL_MS } from './gc-reconciler.js';

const MIN = 60_000;

function setup(options: { maxSessionAgeMs?: number; leader?: () => boolean } = {}) {
  const clock = new FakeClock();
  const wall = (): Date => new Date(WALL_START + clock.now());
  const cluster = new FakeControllerCluster(wall);
  const logger = recordingLogger();
  const { metrics: m, registry } = metrics();
  const gc = new GcReconciler({
    api: cluster, informer: cluster.informer, instance: INSTANCE, idleTimeoutMs: 30 * MIN, maxSessionAgeMs: options.maxSessionAgeMs,
    orphanGraceMs: 10 * MIN, clock, wallClock: wall, metrics: m, logger, writeTimeoutMs: 4000, isLeader: options.leader ?? (() => true),
  });
  const ago = (ms: number): Date => new Date(wall().getTime() - ms);
  const session = (id: string, idleMs: number): void => {
    cluster.addPod(sessionPod(id, { createdAt: ago(idleMs + MIN), lastActivity: ago(idleMs) }));
    cluster.addSecret(sessionSecret(id));
  };
  const pass = () => gc.pass(new AbortController().signal);
  return { cluster, clock, wall, ago, session, gc, pass, logger, registry };
}

function sessionSecret(sessionId: string, name = authSecretName(INSTANCE, sessionId)): V1Secret {
  return { metadata: { name, labels: sandboxLabels(INSTANCE, sessionId) }, type: 'Opaque', data: { token: 'eA==' } };
}

const sessionsLeft = (cluster: FakeControllerCluster): string[] =>
  [...cluster.pods.values()].filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata!.labels!['cli-mcp.redhat.com/session-id']!).sort();

describe(GcReconciler.name, () => {
  it('deletes exactly the idle sessions — pods and Secret, each with uid + resourceVersion preconditions — and keeps fresh ones', async () => {
    const { cluster, session, pass, registry, logger } = setup();
    session('idle', 31 * MIN);
    session('fresh', 5 * MIN);
    await pass();
    expect(sessionsLeft(cluster)).toEqual(['fresh']);
    const [podDelete] = cluster.callsOf('deletePod');
    expect(podDelete!.preconditions).toEqual({ uid: expect.stringMatching(/^uid-/), resourceVersion: expect.any(String) });
    expect(cluster.secrets.has(authSecretName(INSTANCE, 'idle'))).toBe(false);
    expect(cluster.secrets.has(authSecretName(INSTANCE, 'fresh'))).toBe(true);
    expect(cluster.callsOf('deleteSecret')[0]!.preconditions).toBeDefined();
    expect(await registry.metrics()).toContain('cli_mcp_controller_gc_deletions_total{reason="idle"} 1');
    expect(logger.lines.find((l) => l.message === 'removed idle session')?.fields).toMatchObject({ session_id: 'idle', idle_seconds: 1860 });
  });

  it('keeps a session whose last-activity stamp lands between the plan and the delete (409), Secret included', async () => {
    const { cluster, session, pass, wall } = setup();
    session('racing', 31 * MIN);
    cluster.informer.lagging = true;
    cluster.hooks.deletePod = (name) =>
      void cluster.mutatePod(name, (pod) => (pod.metadata!.annotations![LAST_ACTIVITY_ANNOTATION] = formatTimestamp(wall())));
    await pass();
    expect(sessionsLeft(cluster)).toEqual(['racing']);
    expect(cluster.callsOf('listSecrets').filter((c) => c.name.includes('session-id'))).toEqual([]);
    expect(cluster.secrets.has(authSecretName(INSTANCE, 'racing'))).toBe(true);
  });

  it('schedules the next pass at the soonest expiry, not on a tick', async () => {
    const { cluster, session, clock, gc } = setup();
    session('soon', 27 * MIN);
    const loop = new ReconcileLoop({ name: 'gc', pass: (s) => gc.pass(s), clock, random: () => 0.5, logger: recordingLogger() });
    loop.start(new AbortController().signal);
    await settle();
    expect(clock.pending()).toEqual([3 * MIN + 1]); // sooner than the next orphan sweep (5 min)
    clock.advance(3 * MIN);
    await settle();
    expect(sessionsLeft(cluster)).toEqual(['soon']);
    clock.advance(1);
    await settle();
    expect(sessionsLeft(cluster)).toEqual([]);
  });

  it('keeps a freshly claimed pool pod that is hours old, and stamps claimed-at only when --max-session-age is on', async () => {
    for (const maxSessionAgeMs of [undefined, 60 * MIN]) {
      const { cluster, pass, ago, wall } = setup({ maxSessionAgeMs });
      const pod = poolPod('cli-mcp-oc-pool-0a0b0c0d0e', podConfig(), ago(5 * 60 * MIN));
      claim(pod, 'claimed-now', wall());
      cluster.addPod(pod);
      await pass();
      expect(sessionsLeft(cluster)).toEqual(['claimed-now']);
      const stamped = cluster.pods.get('cli-mcp-oc-pool-0a0b0c0d0e')!.metadata!.annotations![CLAIMED_AT_ANNOTATION];
      expect(stamped).toBe(maxSessionAgeMs === undefined ? undefined : formatTimestamp(wall()));
    }
  });

  it('ends busy sessions older than --max-session-age', async () => {
    const { cluster, pass, ago, registry } = setup({ maxSessionAgeMs: 60 * MIN });
    cluster.addPod(sessionPod('old-busy', { createdAt: ago(61 * MIN), lastActivity: ago(1000) }));
    cluster.addPod(sessionPod('young-busy', { createdAt: ago(59 * MIN), lastActivity: ago(1000) }));
    await pass();
    expect(sessionsLeft(cluster)).toEqual(['young-busy']);
    expect(await registry.metrics()).toContain('cli_mcp_controller_gc_deletions_total{reason="max_age"} 1');
  });

  it('sweeps orphan session Secrets older than the grace, at most every 5 minutes', async () => {
    const { cluster, pass, clock, session } = setup();
    session('alive', 1 * MIN);
    const old = cluster.addSecret(sessionSecret('gone-long-ago'));
    old.metadata!.creationTimestamp = new Date(WALL_START - 11 * MIN);
    cluster.addSecret(sessionSecret('just-created')); // its pod is being created right now
    cluster.addSecret({ metadata: { name: 'cli-mcp-oc-kubeconfig', labels: { other: 'x' } } });
    await pass();
    expect([...cluster.secrets.keys()].sort()).toEqual([authSecretName(INSTANCE, 'alive'), authSecretName(INSTANCE, 'just-created'), 'cli-mcp-oc-kubeconfig'].sort());
    await pass();
    expect(cluster.callsOf('listSecrets')).toHaveLength(1);
    clock.advance(ORPHAN_SWEEP_INTERVAL_MS + 6 * MIN);
    await pass();
    expect(cluster.callsOf('listSecrets')).toHaveLength(2);
    expect(cluster.secrets.has(authSecretName(INSTANCE, 'just-created'))).toBe(false);
  });

  it('survives API 5xx, 429 and timeouts: counts them and retries soon with a growing back-off', async () => {
    const { cluster, session, pass, registry } = setup();
    session('idle', 40 * MIN);
    let failures = [new KubeError('Internal error occurred', 500, 'InternalError'), new KubeError('Too many requests', 429, 'TooManyRequests')];
    cluster.hooks.deletePod = () => {
      const failure = failures.shift();
      if (failure) throw failure;
    };
    expect((await pass()).requeueAfterMs).toBe(1000);
    expect((await pass()).requeueAfterMs).toBe(2000);
    expect(sessionsLeft(cluster)).toEqual(['idle']);
    failures = [];
    await pass();
    expect(sessionsLeft(cluster)).toEqual([]);
    expect(await registry.metrics()).toContain('cli_mcp_controller_reconcile_errors_total{reconciler="gc",reason="unavailable"} 2');
  });

  it('writes nothing unless it leads', async () => {
    const { cluster, session, pass } = setup({ leader: () => false });
    session('idle', 40 * MIN);
    await pass();
    expect(cluster.calls).toEqual([]);
  });
});
