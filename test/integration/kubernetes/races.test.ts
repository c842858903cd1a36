/**
 * Multi-replica races (Go §3.9, §4.4): several real SessionManagers — each with its own cache and single flight —
 * share one fake API server and coordinate only through it.
 */
import { SESSION_ID_LABEL, authSecretName } from '@cli-mcp/podspec';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INSTANCE, NAMESPACE, labelOf, noAbort, skipReason, isReadyPod, startKubeStack, type KubeStack, type Replica } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const REPLICAS = 3;
const CALLS = 50;

describeWhenReady('multi-replica races', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const replicas = (): Replica[] => Array.from({ length: REPLICAS }, () => stack.replica());
  const sessionPods = (session: string) => stack.livePods(session);
  const sessionSecrets = (session: string) => stack.secrets().filter((s) => labelOf(s, SESSION_ID_LABEL) === session);

  /** 50 first calls spread over the replicas, all at once; every call reports the pod it ran in. */
  async function burst(session: string, managers: Replica[]): Promise<string[]> {
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => (managers[i % managers.length] as Replica).manager.execute(session, { command: 'echo $HOSTNAME' }, noAbort())),
    );
    const recreated = results.filter((r) => r.sandboxRecreated).length;
    if (recreated > 0) console.log(`[races] ${session}: ${recreated} of ${CALLS} first calls reported a recreated sandbox`);
    return results.map((r) => r.response.stdout);
  }

  it(`${CALLS} concurrent first calls on ${REPLICAS} replicas → exactly one pod and one Secret`, async () => {
    const hosts = await burst('race-create', replicas());
    expect(new Set(hosts).size).toBe(1);
    expect(sessionPods('race-create')).toHaveLength(1);
    expect(sessionSecrets('race-create').map((s) => s.metadata.name)).toEqual([authSecretName(INSTANCE, 'race-create')]);
    expect(sessionPods('race-create')[0]?.metadata.name).toBe(hosts[0]);
  });

  it('the same with unassigned pods present → one pod carries the session, the others are unassigned again', async () => {
    const warm = stack.warmPods(3);
    await Promise.all(warm.map((name) => stack.cluster.waitFor('pods', NAMESPACE, name, isReadyPod)));
    const hosts = await burst('race-claim', replicas());
    expect(new Set(hosts).size).toBe(1);
    const claimed = sessionPods('race-claim');
    expect(claimed).toHaveLength(1);
    expect(warm).toContain(claimed[0]?.metadata.name);
    const others = warm.filter((name) => name !== claimed[0]?.metadata.name).map((name) => stack.cluster.store.get('pods', NAMESPACE, name));
    for (const pod of others) {
      // Either never touched, or rolled back after losing; a pod whose agent took a foreign token is deleted.
      if (pod && !pod.metadata.deletionTimestamp) expect(labelOf(pod, SESSION_ID_LABEL)).toBeUndefined();
    }
    expect(sessionSecrets('race-claim')).toHaveLength(1);
  });

  it('DELETE racing the first exec on the same replica → the exec fails cleanly or succeeds; nothing is left behind', async () => {
    const replica = stack.replica();
    const exec = replica.manager.execute('race-delete', { command: 'echo hi' }, noAbort()).then(
      (r) => ({ ok: true as const, stdout: r.response.stdout }),
      (e: unknown) => ({ ok: false as const, message: (e as Error).message }),
    );
    // Let the acquisition get going (its Secret exists), then end the session.
    await stack.cluster.waitFor('secrets', NAMESPACE, authSecretName(INSTANCE, 'race-delete'), (s) => s !== undefined);
    await replica.manager.end('race-delete', noAbort());
    const outcome = await exec;
    if (outcome.ok) expect(outcome.stdout).toBe('hi');
    else expect(outcome.message).toMatch(/session was ended|cancelled/);
    if (!outcome.ok) {
      expect(sessionPods('race-delete')).toHaveLength(0);
      expect(sessionSecrets('race-delete')).toHaveLength(0);
    }
    await replica.manager.end('race-delete', noAbort());
    expect(sessionPods('race-delete')).toHaveLength(0);
    expect(sessionSecrets('race-delete')).toHaveLength(0);
  });

  it('DELETE on one replica racing an exec on another → never two pods; a final DELETE leaves nothing', async () => {
    const [a, b] = [stack.replica(), stack.replica()];
    await a.manager.execute('race-delete-2', { command: 'true' }, noAbort());
    const podName = sessionPods('race-delete-2')[0]?.metadata.name as string;
    const exec = a.manager.execute('race-delete-2', { command: 'sleep 0.3; echo done' }, noAbort()).then(
      (r) => r.response.stdout,
      (e: unknown) => `error: ${(e as Error).message}`,
    );
    await b.manager.end('race-delete-2', noAbort());
    const outcome = await exec;
    expect(outcome === 'done' || outcome.startsWith('error: ')).toBe(true);
    expect(sessionPods('race-delete-2').length).toBeLessThanOrEqual(1);
    // While the deleted pod's agent drains it answers 503 `agent shutting down` and once it is gone A's cached handle
    // gets connection refused (or a reset pooled socket, retried on a new one): both mean "not delivered", so the
    // next call makes a new sandbox.
    await stack.cluster.waitFor('pods', NAMESPACE, podName, (p) => p === undefined);
    const next = await a.manager.execute('race-delete-2', { command: 'echo again' }, noAbort());
    expect(next.response.stdout).toBe('again');
    expect(sessionPods('race-delete-2')).toHaveLength(1);
    await b.manager.end('race-delete-2', noAbort());
    expect(sessionPods('race-delete-2')).toHaveLength(0);
    expect(sessionSecrets('race-delete-2')).toHaveLength(0);
  });
});
