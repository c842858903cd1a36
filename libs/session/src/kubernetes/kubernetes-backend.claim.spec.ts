import { AgentErrorCode } from '@cli-mcp/agent-client';
/**
 * The claim tier — Go pool_test (Phase 3) `TestClaimPod` and `TestGetOrCreatePodAlwaysClaims` re-expressed, plus
 * the fixed Go bugs: rollback with a fresh signal (§18.16), Secret AlreadyExists → rediscover (§3.9/§4.4),
 * last-activity stamped at claim (§18.9).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { SESSION_ID_LABEL, UNCLAIMABLE_ANNOTATION, authSecretName, sessionPodName } from '@cli-mcp/podspec';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionErrorCode } from '../session-error.js';
import type { PodMergePatch } from '@cli-mcp/kube';
import { KubernetesBackend } from './kubernetes-backend.js';
import { NOW_STAMP, SESSION, TOKEN, asCreated, asReady, backendFixture, hangingWatch, listFrom, type Fixture } from './testing/backend-fixture.js';
import { agentErrors, flush, kubeErrors, pod } from './testing/strict-kube-api.js';

const LAST_ACTIVITY = 'cli-mcp.redhat.com/last-activity';

/**
 * A tiny stateful stand-in for the API server's pods: the claim patch applies its label (409 on a stale
 * resourceVersion), the guarded rollback removes it. Enough to follow a claim through its rollbacks.
 */
/** Pod creation lands in the store, and a created pod becomes Ready at once. */
function createsReadyPods(f: Fixture, store: { pods: V1Pod[] }): void {
  f.api.on('createPod', async (body) => {
    const created = asCreated(body);
    store.pods.push(created);
    return created;
  });
  f.api.on('watchPodUntil', async (name) => ({ type: 'matched', pod: asReady(store.pods.find((p) => p.metadata?.name === name) as V1Pod) }));
}

function podStore(f: Fixture, initial: V1Pod[]): { pods: V1Pod[]; labelOf(name: string): string | undefined } {
  const pods = initial.map((p) => structuredClone(p));
  const find = (name: string): V1Pod => {
    const found = pods.find((p) => p.metadata?.name === name);
    if (!found) throw kubeErrors.notFound(`pods "${name}"`);
    return found;
  };
  f.api.on('listPods', listFrom(() => pods));
  f.api.on('getPod', async (name) => structuredClone(find(name)));
  f.api.on('mergePatchPod', async (name: string, patch: PodMergePatch) => {
    const target = find(name);
    const meta = target.metadata ?? {};
    if (patch.metadata.resourceVersion !== undefined && patch.metadata.resourceVersion !== meta.resourceVersion) throw kubeErrors.conflict();
    for (const [key, value] of Object.entries(patch.metadata.labels ?? {})) {
      if (value === null) delete meta.labels?.[key];
      else meta.labels = { ...meta.labels, [key]: value };
    }
    meta.annotations = { ...meta.annotations, ...(patch.metadata.annotations as Record<string, string>) };
    meta.resourceVersion = String(Number(meta.resourceVersion ?? '0') + 1);
    return structuredClone(target);
  });
  return { pods, labelOf: (name) => find(name).metadata?.labels?.[SESSION_ID_LABEL] };
}

describe(`${KubernetesBackend.name} claim (TestClaimPod)`, () => {
  let f: Fixture;
  afterEach(() => {
    expect(f.api.unexpected).toEqual([]);
    expect(f.agent.unexpected).toBe(0);
  });

  it('labels the pod with a resourceVersion-guarded merge patch, stamps last-activity, creates the Secret, assigns the token', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'warm-1', ip: '10.0.0.4', rv: '10' })]);
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => undefined);
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toEqual({ sessionId: SESSION, agentUrl: 'http://10.0.0.4:8090', token: TOKEN, sandboxName: 'warm-1', path: 'claim', recreated: false });
    expect(f.api.callsOf('mergePatchPod')[0]?.slice(0, 2)).toEqual([
      'warm-1',
      { metadata: { resourceVersion: '10', labels: { [SESSION_ID_LABEL]: SESSION }, annotations: { [LAST_ACTIVITY]: NOW_STAMP } } },
    ]);
    const secret = f.api.callsOf('createSecret')[0]?.[0];
    expect(secret?.metadata?.name).toBe(authSecretName('oc', SESSION));
    expect(secret?.metadata?.labels).toMatchObject({ 'cli-mcp.redhat.com/instance': 'oc', [SESSION_ID_LABEL]: SESSION });
    expect(secret?.stringData).toEqual({ token: TOKEN });
    expect(f.agent.calls.map((c) => [c.baseUrl, c.token])).toEqual([['http://10.0.0.4:8090', TOKEN]]);
    expect(store.labelOf('warm-1')).toBe(SESSION);
    // The last list is the claim tightening's re-list of the session's pods (C-CTL-5): one pod, nothing to delete.
    expect(f.api.sequence).toEqual(['listPods', 'listPods', 'mergePatchPod', 'createSecret', 'listPods']);
    expect(f.agent.outputCalls).toEqual([]);
  });

  it('claims Ready pods first, oldest first', async () => {
    f = backendFixture();
    podStore(f, [
      pod({ name: 'pending-oldest', ready: false, created: '2026-07-29T08:00:00Z' }),
      pod({ name: 'ready-young', created: '2026-07-29T10:00:00Z' }),
      pod({ name: 'ready-old', created: '2026-07-29T09:00:00Z' }),
    ]);
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => undefined);
    expect((await f.sut.acquire(SESSION, new AbortController().signal)).sandboxName).toBe('ready-old');
  });

  it('waits (by watch) for a claimed pod that has no IP yet, then assigns', async () => {
    f = backendFixture();
    podStore(f, [pod({ name: 'warm-1', ready: false })]);
    f.api.on('createSecret', async () => undefined);
    f.api.on('watchPodUntil', async () => ({ type: 'matched', pod: pod({ name: 'warm-1', session: SESSION, ip: '10.0.0.8' }) }));
    f.agent.onAssign(async () => undefined);
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ path: 'claim', agentUrl: 'http://10.0.0.8:8090' });
    expect(f.api.sequence).toEqual(['listPods', 'listPods', 'mergePatchPod', 'createSecret', 'watchPodUntil', 'listPods']);
  });

  it('does not claim a pod of another instance; with nothing claimable it creates on demand', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'aws-warm', instance: 'aws' })]);
    f.api.on('createSecret', async () => undefined);
    createsReadyPods(f, store);
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ path: 'create', sandboxName: sessionPodName('oc', SESSION) });
    expect(f.api.callsOf('mergePatchPod')).toHaveLength(0);
    expect(store.labelOf('aws-warm')).toBeUndefined();
  });

  it('409 on the label patch (a sibling won that pod) → next pod, nothing to roll back', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'a', rv: '1' }), pod({ name: 'b', rv: '1', created: '2026-07-29T11:00:00Z' })]);
    const applyPatch = f.api.handler('mergePatchPod');
    let first = true;
    f.api.on('mergePatchPod', async (name, patch, signal) => {
      if (first) {
        // A sibling changed pod "a" after our list: the resourceVersion precondition fails.
        first = false;
        throw kubeErrors.conflict();
      }
      return applyPatch(name, patch, signal);
    });
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => undefined);
    expect((await f.sut.acquire(SESSION, new AbortController().signal)).sandboxName).toBe('b');
    expect(store.labelOf('a')).toBeUndefined();
    expect(f.api.callsOf('getPod')).toHaveLength(0);
  });

  it('Secret AlreadyExists (a sibling holds the session) → label rolled back, rediscovered, no second pod', async () => {
    f = backendFixture();
    // A sibling is claiming another pod for the same session: its label lands just before our Secret create.
    const store = podStore(f, [pod({ name: 'warm-1' }), pod({ name: 'sibling-claimed', session: 'not-yet', ready: false })]);
    f.api.on('createSecret', async () => {
      store.pods[1]!.metadata!.labels![SESSION_ID_LABEL] = SESSION;
      store.pods[1]!.status = { phase: 'Running', podIP: '10.0.0.6', conditions: [{ type: 'Ready', status: 'True' }] };
      throw kubeErrors.alreadyExists('secrets "x"');
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ sandboxName: 'sibling-claimed', path: 'discover' });
    expect(store.labelOf('warm-1')).toBeUndefined();
    expect(f.api.callsOf('createPod')).toHaveLength(0);
    expect(f.agent.calls).toHaveLength(0);
    // Rollback = read, then a guarded merge patch that nulls the label.
    const rollback = f.api.callsOf('mergePatchPod')[1];
    expect(rollback?.[1]).toEqual({ metadata: { resourceVersion: '11', labels: { [SESSION_ID_LABEL]: null } } });
  });

  it('Secret AlreadyExists and nothing to rediscover (stale Secret) → create, reported as recreated', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'warm-1' })]);
    f.api.on('createSecret', async () => {
      throw kubeErrors.alreadyExists('secrets "x"');
    });
    createsReadyPods(f, store);
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ path: 'create', recreated: true });
    expect(store.labelOf('warm-1')).toBeUndefined();
    expect(f.api.callsOf('deleteSecret')).toHaveLength(0);
  });

  it('/assign 500 and the agent is still unassigned → label rolled back, Secret deleted, next pod claimed', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'bad', ip: '10.0.0.1' }), pod({ name: 'good', ip: '10.0.0.2', created: '2026-07-29T11:00:00Z' })]);
    f.api.on('createSecret', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    f.agent.onAssign(async (url) => {
      if (url.includes('10.0.0.1')) throw agentErrors.status(AgentErrorCode.Internal, 'boom');
    });
    // After a 5xx the assign may have landed: the agent is asked, and says it holds no token.
    f.agent.onOutput(async () => {
      throw agentErrors.status(AgentErrorCode.NotAssigned);
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ sandboxName: 'good', path: 'claim' });
    expect(store.labelOf('bad')).toBeUndefined();
    expect(f.api.callsOf('deleteSecret').map(([name]) => name)).toEqual([authSecretName('oc', SESSION)]);
    expect(f.agent.calls.map((c) => c.token)).toEqual([TOKEN, TOKEN]);
    expect(f.agent.outputCalls.map((c) => [c.baseUrl, c.token])).toEqual([['http://10.0.0.1:8090', TOKEN]]);
  });

  it('/assign timed out but the agent took our token → the claim stands (no rollback of a pod that serves us)', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'slow-answer', ip: '10.0.0.1' })]);
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => {
      throw agentErrors.timeout();
    });
    f.agent.onOutput(async (_url, token) => {
      if (token !== TOKEN) throw agentErrors.unauthorized();
      return { running: false };
    });
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ sandboxName: 'slow-answer', path: 'claim' });
    expect(store.labelOf('slow-answer')).toBe(SESSION);
    expect(f.agent.outputCalls[0]?.requestId).toMatch(/^token-check-/);
  });

  it('/assign fails because the caller aborted → rollback still runs, on a fresh signal; no create', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'warm-1' })]);
    const caller = new AbortController();
    f.api.on('createSecret', async () => undefined);
    const cleanupSignals: AbortSignal[] = [];
    f.api.on('deleteSecret', async (_name, signal) => void cleanupSignals.push(signal));
    f.agent.onAssign(async () => {
      caller.abort();
      throw agentErrors.aborted();
    });
    const error = await f.sut.acquire(SESSION, caller.signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: SessionErrorCode.Cancelled });
    expect(store.labelOf('warm-1')).toBeUndefined();
    const rollbackSignals = [...f.api.callsOf('getPod').map(([, s]) => s), f.api.callsOf('mergePatchPod')[1]?.[2] as AbortSignal];
    expect([...rollbackSignals, ...cleanupSignals].every((s) => !s.aborted)).toBe(true);
    expect(cleanupSignals).toHaveLength(1);
    expect(f.api.callsOf('createPod')).toHaveLength(0);
  });

  it('/assign 409 and the agent holds ANOTHER token → never deleted: unlabelled, marked unclaimable, next pod', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'poisoned', ip: '10.0.0.1' }), pod({ name: 'good', ip: '10.0.0.2', created: '2026-07-29T11:00:00Z' })]);
    f.api.on('createSecret', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    f.agent.onAssign(async (url) => {
      if (url.includes('10.0.0.1')) throw agentErrors.status(AgentErrorCode.AlreadyAssigned);
    });
    f.agent.onOutput(async () => {
      throw agentErrors.unauthorized();
    });
    expect((await f.sut.acquire(SESSION, new AbortController().signal)).sandboxName).toBe('good');
    expect(f.api.callsOf('deletePod')).toEqual([]);
    expect(store.labelOf('poisoned')).toBeUndefined();
    expect(store.pods[0]?.metadata?.annotations?.[UNCLAIMABLE_ANNOTATION]).toBe('token-conflict');
    expect(f.api.callsOf('mergePatchPod')[1]?.[1]).toEqual({
      metadata: { resourceVersion: '11', labels: { [SESSION_ID_LABEL]: null }, annotations: { [UNCLAIMABLE_ANNOTATION]: 'token-conflict' } },
    });
    expect(f.api.callsOf('deleteSecret')).toHaveLength(1);
  });

  it('/assign 409 because a sibling delivered OUR token first (agent before C-AG-13) → claimed, nothing deleted', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'shared', ip: '10.0.0.1' })]);
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => {
      throw agentErrors.status(AgentErrorCode.AlreadyAssigned);
    });
    f.agent.onOutput(async (_url, token) => {
      if (token !== TOKEN) throw agentErrors.unauthorized();
      return { running: false };
    });
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ sandboxName: 'shared', path: 'claim' });
    expect(store.labelOf('shared')).toBe(SESSION);
    expect(f.api.callsOf('deletePod')).toEqual([]);
    expect(f.api.callsOf('deleteSecret')).toEqual([]);
  });

  it('skips terminating, finished, crash-looping and marked pods (C-CTL-5)', async () => {
    f = backendFixture();
    const crashLooping = pod({ name: 'crash-looping', created: '2026-07-29T08:00:00Z' });
    crashLooping.status!.containerStatuses = [{ name: 'sandbox', image: 'i', imageID: '', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }];
    const marked = pod({ name: 'marked', created: '2026-07-29T08:10:00Z' });
    marked.metadata!.annotations = { [UNCLAIMABLE_ANNOTATION]: 'token-conflict' };
    podStore(f, [
      pod({ name: 'terminating', deleting: true, created: '2026-07-29T07:00:00Z' }),
      pod({ name: 'failed', phase: 'Failed', created: '2026-07-29T07:30:00Z' }),
      crashLooping,
      marked,
      pod({ name: 'healthy', created: '2026-07-29T12:00:00Z' }),
    ]);
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => undefined);
    expect((await f.sut.acquire(SESSION, new AbortController().signal)).sandboxName).toBe('healthy');
    expect(f.api.callsOf('mergePatchPod').map(([name]) => name)).toEqual(['healthy']);
  });

  it('tightening: an older serving pod of the session wins; the other live ones are deleted with uid + resourceVersion preconditions', async () => {
    f = backendFixture();
    const store = podStore(f, [
      pod({ name: 'warm', ip: '10.0.0.4', created: '2026-07-29T12:00:00Z' }),
      pod({ name: 'older', session: 'not-yet', ip: '10.0.0.5', created: '2026-07-29T09:00:00Z', rv: '30' }),
      pod({ name: 'pending-extra', session: 'not-yet', ready: false, created: '2026-07-29T11:00:00Z', rv: '31' }),
    ]);
    f.api.on('createSecret', async () => {
      // Both appear for our session between our discovery and our claim (e.g. a DELETE racing a create elsewhere).
      for (const p of store.pods.slice(1)) p.metadata!.labels![SESSION_ID_LABEL] = SESSION;
    });
    f.agent.onAssign(async () => undefined);
    const deleted: unknown[] = [];
    f.api.on('deletePod', async (name, _signal, preconditions) => {
      deleted.push([name, preconditions]);
      if (name === 'pending-extra') throw kubeErrors.conflict();
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ sandboxName: 'older', agentUrl: 'http://10.0.0.5:8090', path: 'claim' });
    expect(deleted).toEqual([
      ['warm', { uid: 'uid-warm', resourceVersion: '11' }],
      ['pending-extra', { uid: 'uid-pending-extra', resourceVersion: '31' }],
    ]);
    expect(f.api.callsOf('deleteSecret')).toEqual([]);
  });

  it('tightening is best effort: a failed re-list keeps the claimed pod', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'warm' })]);
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => undefined);
    const list = f.api.handler('listPods');
    let lists = 0;
    f.api.on('listPods', async (query, signal) => {
      if (++lists === 3) throw kubeErrors.internal();
      return list(query, signal);
    });
    expect((await f.sut.acquire(SESSION, new AbortController().signal)).sandboxName).toBe('warm');
    expect(store.labelOf('warm')).toBe(SESSION);
  });

  it('every claim fails → rediscover, then create (no pod stays labelled)', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'w1', ip: '10.0.0.1' })]);
    f.api.on('createSecret', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    createsReadyPods(f, store);
    f.agent.onAssign(async () => {
      throw agentErrors.status(AgentErrorCode.Internal, 'boom');
    });
    f.agent.onOutput(async () => {
      throw agentErrors.status(AgentErrorCode.NotAssigned);
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ path: 'create' });
    expect(store.labelOf('w1')).toBeUndefined();
    const lists = f.api.callsOf('listPods').map(([q]) => (q.labelSelector?.includes('!') ? 'unassigned' : 'assigned'));
    expect(lists).toEqual(['assigned', 'unassigned', 'assigned']);
  });

  it('claimed pod not Ready within the timeout → pod and Secret deleted, `claimed pod not ready`, no fallback create', async () => {
    f = backendFixture();
    podStore(f, [pod({ name: 'slow', ready: false })]);
    f.api.on('createSecret', async () => undefined);
    f.api.on('watchPodUntil', hangingWatch);
    f.api.on('deletePod', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    const acquiring = f.sut.acquire(SESSION, new AbortController().signal).catch((e: unknown) => e);
    await flush();
    f.clock.advance(60_000);
    expect(await acquiring).toMatchObject({ code: SessionErrorCode.SandboxUnavailable, message: 'resolve pod: claimed pod not ready: pod "slow" not ready within 1m0s' });
    expect(f.api.callsOf('deletePod').map(([n]) => n)).toEqual(['slow']);
    expect(f.api.callsOf('deleteSecret')).toHaveLength(1);
    expect(f.api.callsOf('createPod')).toHaveLength(0);
  });

  it('claimed non-Ready pod + caller deadline → error, the pod keeps its label and Secret (a sibling may wait on it)', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'slow', ready: false })]);
    f.api.on('createSecret', async () => undefined);
    f.api.on('watchPodUntil', hangingWatch);
    const caller = new AbortController();
    const acquiring = f.sut.acquire(SESSION, caller.signal).catch((e: unknown) => e);
    await flush();
    caller.abort(new DOMException('deadline', 'TimeoutError'));
    expect(await acquiring).toMatchObject({ code: SessionErrorCode.Cancelled });
    expect(store.labelOf('slow')).toBe(SESSION);
    expect(f.api.callsOf('deletePod')).toHaveLength(0);
  });

  it('a rollback never strips the label of another session', async () => {
    f = backendFixture();
    const store = podStore(f, [pod({ name: 'contested' })]);
    const caller = new AbortController();
    // Our patch is aborted in flight and never lands; another session claims the pod meanwhile.
    f.api.on('mergePatchPod', async () => {
      store.pods[0]!.metadata!.labels![SESSION_ID_LABEL] = 'other-session';
      caller.abort();
      throw new Error('request aborted');
    });
    const error = await f.sut.acquire(SESSION, caller.signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: SessionErrorCode.Cancelled });
    expect(store.labelOf('contested')).toBe('other-session');
    expect(f.api.callsOf('mergePatchPod')).toHaveLength(1);
  });
});
