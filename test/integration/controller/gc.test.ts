/**
 * Idle and age GC end to end in one process (C-CTL-3, C-CTL-7): real server replicas make real sessions, the real
 * controller runtime removes them, and one clock — shared by the server, the controller and the fake API server —
 * is jumped forward instead of waiting half an hour.
 */
import { CLAIMED_AT_ANNOTATION, LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, authSecretName, sandboxLabels } from '@cli-mcp/podspec';
import { SECRETS } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { INSTANCE, NAMESPACE, isReadyPod, noAbort, skipReason, type Replica } from '../kubernetes/support/kube-stack.js';
import { startControllerStack, untilCluster, type ControllerStack } from './support/controller-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const MIN = 60_000;
let stack: ControllerStack;
let replica: Replica;

const live = (session: string) => stack.pods().filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === session && !p.metadata.deletionTimestamp);
const secretOf = (session: string) => stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, session));
const gone = (session: string) => (): boolean => live(session).length === 0 && secretOf(session) === undefined;

describeWhenReady('idle and age GC (controller + fake cluster + real agents, jumped clock)', skipReason, () => {
  beforeAll(async () => {
    stack = await startControllerStack();
    replica = stack.replica({ wallClock: stack.clock.wall });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('deletes exactly the sessions idle past --idle-timeout (pods and Secret) and keeps the fresh one', async () => {
    await replica.manager.execute('gc-old', { command: 'true' }, noAbort());
    stack.clock.jump(20 * MIN);
    await replica.manager.execute('gc-fresh', { command: 'true' }, noAbort());
    const ctl = stack.controller({ idleTimeoutMs: 30 * MIN });
    onTestFinished(() => ctl.stop());
    await untilCluster(stack, () => ctl.runtime.elector.isLeader, 'leadership');
    stack.clock.jump(11 * MIN); // gc-old idle 31 min, gc-fresh 11 min
    await ctl.logger.until('removed idle session');
    expect(gone('gc-old')()).toBe(true);
    expect(live('gc-fresh')).toHaveLength(1);
    expect(secretOf('gc-fresh')).toBeDefined();
    const deletes = stack.cluster.requests.entries({ method: 'DELETE', resource: 'pods' });
    expect(deletes.at(-1)?.body).toMatchObject({ preconditions: { uid: expect.any(String), resourceVersion: expect.any(String) } });
    expect(await ctl.registry.getSingleMetricAsString('cli_mcp_controller_gc_deletions_total')).toMatch(/reason="idle"} 1/);
    await replica.manager.end('gc-fresh', noAbort());
  });

  it('keeps a freshly claimed pool pod hours old, stamps claimed-at, and applies --max-session-age from the claim', async () => {
    const ctl = stack.controller({ poolSize: 1, idleTimeoutMs: 3 * 60 * MIN, maxSessionAgeMs: 60 * MIN });
    onTestFinished(() => ctl.stop());
    await untilCluster(stack, () => stack.pods().some((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined && !p.metadata.deletionTimestamp && isReadyPod(p)), 'a Ready pool pod');
    stack.clock.jump(2 * 60 * MIN); // the pool pod is two hours old now
    await replica.manager.execute('gc-claimed', { command: 'true' }, noAbort());
    const claimed = live('gc-claimed')[0]!;
    const claimStamp = claimed.metadata.annotations?.[LAST_ACTIVITY_ANNOTATION];
    await untilCluster(stack, () => live('gc-claimed')[0]?.metadata.annotations?.[CLAIMED_AT_ANNOTATION] === claimStamp, 'claimed-at stamped');
    expect(live('gc-claimed')).toHaveLength(1);

    stack.clock.jump(61 * MIN); // an hour after the claim, still busy: the absolute lifetime ends it
    await replica.manager.execute('gc-claimed', { command: 'true' }, noAbort()).catch(() => undefined);
    await ctl.logger.until('removed session past --max-session-age');
    expect(await ctl.registry.getSingleMetricAsString('cli_mcp_controller_gc_deletions_total')).toMatch(/reason="max_age"} 1/);
    await replica.manager.end('gc-claimed', noAbort());
  });

  it('sweeps an orphan session Secret once it is older than the grace', async () => {
    stack.cluster.api.create(SECRETS, NAMESPACE, {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-auth-oc-orphan-00000000', labels: sandboxLabels(INSTANCE, 'orphan') }, stringData: { token: 'x' },
    });
    const ctl = stack.controller({ orphanSecretGraceMs: 10 * MIN });
    onTestFinished(() => ctl.stop());
    await untilCluster(stack, () => ctl.runtime.elector.isLeader, 'leadership');
    expect(stack.cluster.store.get('secrets', NAMESPACE, 'cli-mcp-auth-oc-orphan-00000000')).toBeDefined(); // young: kept
    stack.clock.jump(11 * MIN);
    await ctl.logger.until('removed orphan session secret');
    expect(stack.cluster.store.get('secrets', NAMESPACE, 'cli-mcp-auth-oc-orphan-00000000')).toBeUndefined();
    expect(await ctl.registry.getSingleMetricAsString('cli_mcp_controller_gc_deletions_total')).toMatch(/reason="orphan_secret"} 1/);
  });

  it('survives 5xx, 429 and latency on its deletes, and still removes the idle session', async () => {
    await replica.manager.execute('gc-faulty', { command: 'true' }, noAbort());
    const ctl = stack.controller({ idleTimeoutMs: 30 * MIN });
    onTestFinished(() => ctl.stop());
    await untilCluster(stack, () => ctl.runtime.elector.isLeader, 'leadership');
    // The first matching rule shapes a request: two 500s, one 429, then latency on everything else.
    const failing = stack.cluster.faults.add({ method: 'DELETE', pathPattern: /\/pods\//, status: 500, times: 2 });
    const throttled = stack.cluster.faults.add({ method: 'DELETE', pathPattern: /\/pods\//, status: 429, retryAfterSeconds: 1, times: 1 });
    const slow = stack.cluster.faults.add({ pathPattern: /\/namespaces\/cli-mcp\/(pods|secrets)/, watch: false, delayMs: 150 });
    onTestFinished(() => stack.cluster.faults.clear());
    stack.clock.jump(31 * MIN);
    await ctl.logger.until('removed idle session', 30_000);
    expect(gone('gc-faulty')()).toBe(true);
    expect(failing.hits).toBe(2);
    expect(throttled.hits).toBe(1);
    expect(slow.hits).toBeGreaterThan(0);
    expect(await ctl.registry.getSingleMetricAsString('cli_mcp_controller_reconcile_errors_total')).toMatch(/reconciler="gc",reason="unavailable"} [1-9]/);
  });
});
