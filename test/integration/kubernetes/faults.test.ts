/**
 * Fault injection against the real stack: API 500s/429s/latency, a watch cut mid-wait, agents killed, a claimed
 * pod's container restarting, pods deleted behind the server's back, and the API server unreachable.
 */
import { SESSION_ID_LABEL, authSecretName, sessionPodName } from '@cli-mcp/podspec';
import { PODS } from '@cli-mcp/testing';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { INSTANCE, NAMESPACE, labelOf, noAbort, skipReason, isReadyPod, readyAfterRestarts, startKubeStack, type KubeStack } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

describeWhenReady('faults', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(() => {
    stack.cluster.faults.clear();
  });

  it('a 500 on pod create fails that call clearly (Secret cleaned up); the next call succeeds', async () => {
    const { manager } = stack.replica();
    stack.cluster.faults.add({ method: 'POST', pathPattern: /\/pods$/, status: 500, times: 1 });
    await expect(manager.execute('f-500', { command: 'true' }, noAbort())).rejects.toMatchObject({
      message: 'resolve pod: create sandbox pod: create pod: Internal error occurred: injected fault',
    });
    expect(stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, 'f-500'))).toBeUndefined();
    const ok = await manager.execute('f-500', { command: 'echo ok' }, noAbort());
    expect(ok.response.stdout).toBe('ok');
  });

  it('429s are retried after Retry-After (bounded) and the call succeeds', async () => {
    const { manager } = stack.replica();
    const rule = stack.cluster.faults.add({ method: 'GET', pathPattern: /\/pods$/, watch: false, status: 429, retryAfterSeconds: 0, times: 2 });
    const result = await manager.execute('f-429', { command: 'echo ok' }, noAbort());
    expect(result.response.stdout).toBe('ok');
    expect(rule.hits).toBe(2);
  });

  it('works under 50 ms latency on every API request', async () => {
    const { manager } = stack.replica();
    stack.cluster.faults.add({ pathPattern: /^\/api\/v1\//, delayMs: 50 });
    const result = await manager.execute('f-latency', { command: 'echo slow' }, noAbort());
    expect(result.response.stdout).toBe('slow');
  });

  it('a watch cut mid-wait → one GET and a new watch; the call still succeeds', async () => {
    const { manager } = stack.replica();
    const name = sessionPodName(INSTANCE, 'f-cut');
    const release = stack.cluster.kubelet?.holdPending((p) => p.metadata.name === name);
    const since = stack.cluster.requests.last()?.seq ?? 0;
    const running = manager.execute('f-cut', { command: 'echo survived' }, noAbort());
    await stack.cluster.server.whenWatching({ resource: 'pods', since });
    stack.cluster.server.cutWatches({ abrupt: true });
    const again = stack.cluster.requests.last()?.seq ?? 0;
    await stack.cluster.server.whenWatching({ resource: 'pods', since: again });
    release?.();
    expect((await running).response.stdout).toBe('survived');
    const mine = stack.cluster.requests.entries().filter((r) => r.seq > since && (r.name === name || r.query['fieldSelector'] === `metadata.name=${name}`));
    expect(mine.filter((r) => r.verb === 'watch')).toHaveLength(2);
    expect(mine.filter((r) => r.verb === 'get')).toHaveLength(1);
  });

  it('the agent process crashes → the kubelet restarts it; the next call works and says the sandbox was recreated', async () => {
    const { manager } = stack.replica();
    await manager.execute('f-crash', { command: 'export KEPT=1' }, noAbort());
    const name = sessionPodName(INSTANCE, 'f-crash');
    await stack.cluster.kubelet?.crashContainer(NAMESPACE, name);
    const next = await manager.execute('f-crash', { command: 'echo "kept=${KEPT:-no}"' }, noAbort());
    expect(next.response.stdout).toBe('kept=no');
    expect(next.sandboxRecreated).toBe(true);
    const after = await manager.execute('f-crash', { command: 'true' }, noAbort());
    expect(after.sandboxRecreated).toBe(false);
  });

  it('the pod fails for good (evicted) → a new pod replaces it, with the recreate notice', async () => {
    const { manager } = stack.replica();
    await manager.execute('f-evict', { command: 'true' }, noAbort());
    const name = sessionPodName(INSTANCE, 'f-evict');
    await stack.cluster.kubelet?.failPod(NAMESPACE, name, { reason: 'Evicted', message: 'ephemeral storage' });
    const next = await manager.execute('f-evict', { command: 'echo new' }, noAbort());
    expect(next).toMatchObject({ sandboxRecreated: true, response: { stdout: 'new' } });
    const pod = stack.cluster.store.get('pods', NAMESPACE, name);
    expect((pod?.['status'] as { phase?: string }).phase).toBe('Running');
  });

  it('a claimed pod whose container restarts comes back unassigned → the token is re-delivered with /assign', async () => {
    const [warm] = stack.warmPods(1) as [string];
    await stack.cluster.waitFor('pods', NAMESPACE, warm, isReadyPod);
    const { manager } = stack.replica();
    expect((await manager.execute('f-restart', { command: 'true' }, noAbort())).acquirePath).toBe('claim');
    await stack.cluster.kubelet?.crashContainer(NAMESPACE, warm);
    await stack.cluster.waitFor('pods', NAMESPACE, warm, readyAfterRestarts(1));
    const next = await manager.execute('f-restart', { command: 'echo reassigned' }, noAbort());
    expect(next.response.stdout).toBe('reassigned');
    const pod = stack.cluster.store.get('pods', NAMESPACE, warm);
    expect(pod && labelOf(pod, SESSION_ID_LABEL)).toBe('f-restart');
  });

  it('a pod deleted behind the server\'s back → recreated on the next call, with the notice', async () => {
    const { manager } = stack.replica();
    await manager.execute('f-deleted', { command: 'true' }, noAbort());
    const name = sessionPodName(INSTANCE, 'f-deleted');
    stack.cluster.api.delete(PODS, NAMESPACE, name, {});
    await stack.cluster.waitFor('pods', NAMESPACE, name, (p) => p === undefined);
    const next = await manager.execute('f-deleted', { command: 'echo back' }, noAbort());
    expect(next).toMatchObject({ sandboxRecreated: true, response: { stdout: 'back' } });
  });

  it('API server unreachable → health fails, new sessions fail clearly, cached ones keep working; then it recovers', async () => {
    const { manager } = stack.replica();
    await manager.execute('f-down-cached', { command: 'true' }, noAbort());
    const outage = stack.cluster.faults.add({ pathPattern: /.*/, dropConnection: true });
    await expect(manager.checkHealth(noAbort())).rejects.toMatchObject({ message: expect.stringMatching(/^kubernetes API: list pods in namespace "cli-mcp": /) });
    await expect(manager.execute('f-down-new', { command: 'true' }, noAbort())).rejects.toMatchObject({
      message: expect.stringMatching(/^resolve pod: discover pod: list pods: .*socket hang up/),
    });
    expect((await manager.execute('f-down-cached', { command: 'echo cached' }, noAbort())).response.stdout).toBe('cached');
    outage.remove();
    await manager.checkHealth(noAbort());
    expect((await manager.execute('f-down-new', { command: 'echo recovered' }, noAbort())).response.stdout).toBe('recovered');
  });
});
