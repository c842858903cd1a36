/**
 * Eager acquisition (C-MCP-13) on the Kubernetes backend: what `initialize` and `tools/list` start (`prepare`) and
 * the first command share ONE acquisition (C-K8S-4: one per session per replica) — one claim or one create, one pod
 * — and the session metrics count that acquisition once, however many requests waited for it. Real SessionManager
 * → KubernetesBackend → client-node → fake API server → kubelet simulator → real agents. The overlap is forced by
 * holding the claim's `/assign` or the created pod's start until every request waits, never by timing.
 */
import { sessionPodName } from '@cli-mcp/podspec';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INSTANCE, NAMESPACE, deferred, isReadyPod, noAbort, skipReason, startKubeStack, type KubeStack, type Replica } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

describeWhenReady('eager acquisition shares one acquisition with the first command (C-MCP-13, C-K8S-4)', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const livePods = (session: string) => stack.livePods(session);
  const podRequests = (since: number, verb: 'create' | 'patch' | 'delete') => stack.cluster.requests.entries({ verb, resource: 'pods' }).filter((r) => r.seq > since);
  const sinceNow = () => stack.cluster.requests.last()?.seq ?? 0;

  /** Every session metric of the replica as one exposition text (one replica per case: the counts are its own). */
  const metricsOf = (replica: Replica) => replica.registry.metrics();

  /** The eager `prepare` of `initialize`, another of `tools/list` and the first command, all waiting on one flight. */
  function startAll(replica: Replica, session: string) {
    return {
      initialize: replica.manager.prepare(session, noAbort()),
      toolsList: replica.manager.prepare(session, noAbort()),
      call: replica.manager.execute(session, { command: 'echo "$HOSTNAME"' }, noAbort()),
    };
  }

  it('a pool pod: one claim, one pod, counted once — however many requests waited for it', async () => {
    const [warm] = stack.warmPods(1);
    await stack.cluster.waitFor('pods', NAMESPACE, warm as string, isReadyPod);
    const arrived = deferred();
    const release = deferred();
    const replica = stack.replica({
      beforeAssign: async () => {
        arrived.resolve();
        await release.promise;
      },
    });
    const since = sinceNow();
    const requests = startAll(replica, 'e-claim');
    await arrived.promise; // the claim is at its /assign; all three requests are waiting on it
    release.resolve();
    expect(await requests.initialize).toBe('claim');
    expect(await requests.toolsList).toBe('claim');
    expect(await requests.call).toMatchObject({ acquirePath: 'claim', response: { stdout: warm, exit_code: 0 } });
    expect((await replica.manager.execute('e-claim', { command: 'true' }, noAbort())).acquirePath).toBe('cache');

    expect(podRequests(since, 'patch')).toHaveLength(1); // the one claim (its stamp spares the touch a patch)
    expect(podRequests(since, 'create')).toHaveLength(0);
    expect(podRequests(since, 'delete')).toHaveLength(0); // no extra pod for claim tightening to remove
    expect(replica.logs.filter((l) => l.message === 'claimed unassigned sandbox pod')).toHaveLength(1);
    expect(livePods('e-claim').map((p) => p.metadata.name)).toEqual([warm]);

    const text = await metricsOf(replica);
    expect(text).toContain('cli_mcp_sandbox_acquisitions_total{trigger="eager",result="ok"} 1');
    expect(text).not.toContain('trigger="call"');
    // One backend lookup (the claim); the two requests that joined it are counted as sharing it, not as misses.
    expect(text).toContain('cli_mcp_session_lookups_total{tier="backend",result="miss"} 1');
    expect(text).toContain('cli_mcp_session_lookups_total{tier="backend",result="shared"} 2');
    expect(text).toContain('cli_mcp_session_lookups_total{tier="cache",result="miss"} 3');
    expect(text).toContain('cli_mcp_session_acquire_seconds_count{path="claim"} 1');
  });

  it('no pool: one create, one pod — the command started while the pod was starting waits for that pod', async () => {
    const session = 'e-create';
    const name = sessionPodName(INSTANCE, session);
    const unhold = stack.cluster.kubelet!.holdPending((pod) => pod.metadata.name === name);
    const replica = stack.replica();
    const since = sinceNow();
    const initialize = replica.manager.prepare(session, noAbort());
    try {
      await stack.cluster.waitFor('pods', NAMESPACE, name, (pod) => pod !== undefined); // created, held Pending
    } finally {
      unhold();
    }
    // The model's tools/list and first command come while the pod starts (released just above, not Ready yet).
    const toolsList = replica.manager.prepare(session, noAbort());
    const call = replica.manager.execute(session, { command: 'echo "$HOSTNAME"' }, noAbort());
    expect(await initialize).toBe('create');
    expect(await toolsList).toBe('create');
    expect(await call).toMatchObject({ acquirePath: 'create', response: { stdout: name } });

    expect(podRequests(since, 'create')).toHaveLength(1);
    expect(podRequests(since, 'delete')).toHaveLength(0);
    expect(livePods(session).map((p) => p.metadata.name)).toEqual([name]);
    const text = await metricsOf(replica);
    expect(text).toContain('cli_mcp_sandbox_acquisitions_total{trigger="eager",result="ok"} 1');
    expect(text).not.toContain('trigger="call"');
    expect(text).toContain('cli_mcp_session_lookups_total{tier="backend",result="miss"} 1');
    expect(text).toContain('cli_mcp_session_lookups_total{tier="backend",result="shared"} 2');
    expect(text).toContain('cli_mcp_session_acquire_seconds_count{path="create"} 1');
  });
});
