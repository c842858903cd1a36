/**
 * Go manager_test / pool_test inventory end to end: real SessionManager → KubernetesBackend → client-node →
 * fake API server → kubelet simulator → REAL sandbox agents. One cluster for the file; one session id per case.
 */
import { LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, authSecretName, sessionPodName } from '@cli-mcp/podspec';
import { PODS, eventually } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INSTANCE, NAMESPACE, labelOf, noAbort, skipReason, isReadyPod, startKubeStack, type KubeStack } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

describeWhenReady('Kubernetes backend with real agents', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a pod on demand, keeps the shell across calls, and serves later calls from the cache', async () => {
    const { manager } = stack.replica();
    const first = await manager.execute('m-create', { command: 'cd /tmp && export GREETING=hello' }, noAbort());
    expect(first).toMatchObject({ acquirePath: 'create', sandboxRecreated: false });
    const second = await manager.execute('m-create', { command: 'echo "$GREETING from $(pwd)"' }, noAbort());
    expect(second.response.stdout).toBe('hello from /tmp');
    expect(second.acquirePath).toBe('cache');
    const pod = stack.cluster.store.get('pods', NAMESPACE, sessionPodName(INSTANCE, 'm-create'));
    expect(pod && labelOf(pod, SESSION_ID_LABEL)).toBe('m-create');
    expect(stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, 'm-create'))).toBeDefined();
  });

  it('awaits readiness by watch: no repeated GETs of the pod while it starts (C-K8S-5)', async () => {
    const { manager } = stack.replica();
    const since = stack.cluster.requests.last()?.seq ?? 0;
    await manager.execute('m-watch', { command: 'true' }, noAbort());
    const name = sessionPodName(INSTANCE, 'm-watch');
    const mine = stack.cluster.requests.entries().filter((r) => r.seq > since && (r.name === name || r.query['fieldSelector'] === `metadata.name=${name}`));
    expect(mine.filter((r) => r.verb === 'get')).toHaveLength(0);
    expect(mine.filter((r) => r.verb === 'watch')).toHaveLength(1);
  });

  it('a second replica discovers the pod by label and uses the same shell', async () => {
    const a = stack.replica();
    const b = stack.replica();
    await a.manager.execute('m-discover', { command: 'echo state > marker' }, noAbort());
    const fromB = await b.manager.execute('m-discover', { command: 'cat marker' }, noAbort());
    expect(fromB).toMatchObject({ acquirePath: 'discover', sandboxRecreated: false });
    expect(fromB.response.stdout).toBe('state');
  });

  it('claims a warm pod: label, Secret, /assign with the session token, last-activity stamped', async () => {
    const [warm] = stack.warmPods(1);
    await stack.cluster.waitFor('pods', NAMESPACE, warm as string, isReadyPod);
    const { manager } = stack.replica();
    const result = await manager.execute('m-claim', { command: 'echo claimed' }, noAbort());
    expect(result).toMatchObject({ acquirePath: 'claim', response: { stdout: 'claimed', exit_code: 0 } });
    const pod = stack.cluster.store.get('pods', NAMESPACE, warm as string);
    expect(pod && labelOf(pod, SESSION_ID_LABEL)).toBe('m-claim');
    expect((pod?.metadata.annotations as Record<string, string>)[LAST_ACTIVITY_ANNOTATION]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, 'm-claim'))).toBeDefined();
  });

  it('ignores pods of another instance', async () => {
    // A Running+Ready pod of instance "aws" for the same session id (bound to another node: no agent here).
    const other = stack.cluster.api.create(PODS, NAMESPACE, {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'aws-sandbox', labels: { 'cli-mcp.redhat.com/instance': 'aws', 'cli-mcp.redhat.com/component': 'sandbox', [SESSION_ID_LABEL]: 'm-instance' } },
      spec: { nodeName: 'other-node', containers: [{ name: 'sandbox', image: 'x' }] },
    });
    stack.cluster.api.mutatePod(NAMESPACE, 'aws-sandbox', other.metadata.uid as string, (pod) => {
      pod['status'] = { phase: 'Running', podIP: '127.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] };
    });
    const { manager } = stack.replica();
    const result = await manager.execute('m-instance', { command: 'true' }, noAbort());
    expect(result.acquirePath).toBe('create');
    expect(stack.cluster.store.get('pods', NAMESPACE, sessionPodName(INSTANCE, 'm-instance'))).toBeDefined();
    expect(other.metadata.name).toBe('aws-sandbox');
  });

  it('patches last-activity at most once per interval, never per call (C-K8S-6)', async () => {
    const { manager } = stack.replica({ activityIntervalMs: 60_000 });
    await manager.execute('m-touch', { command: 'true' }, noAbort());
    const since = stack.cluster.requests.last()?.seq ?? 0;
    for (let i = 0; i < 20; i++) await manager.execute('m-touch', { command: 'true' }, noAbort());
    const patches = stack.cluster.requests.entries({ verb: 'patch' }).filter((r) => r.seq > since);
    // The create stamped the pod: no patch for the first interval.
    expect(patches).toHaveLength(0);
  });

  it('DELETE removes the pod and the Secret and is idempotent; the next call starts fresh', async () => {
    const { manager } = stack.replica();
    await manager.execute('m-delete', { command: 'echo x > file' }, noAbort());
    await manager.end('m-delete', noAbort());
    await manager.end('m-delete', noAbort());
    expect(stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, 'm-delete'))).toBeUndefined();
    const pod = stack.cluster.store.get('pods', NAMESPACE, sessionPodName(INSTANCE, 'm-delete'));
    expect(pod === undefined || pod.metadata.deletionTimestamp !== undefined).toBe(true);
    // The old pod may still be terminating under the same name: the create waits for it (Go §18.14).
    const fresh = await manager.execute('m-delete', { command: 'ls file 2>/dev/null || echo none' }, noAbort());
    expect(fresh.response.stdout).toBe('none');
    expect(fresh.sandboxRecreated).toBe(false);
  });

  it('checkHealth lists pods in the namespace with limit=1', async () => {
    const { manager } = stack.replica();
    const since = stack.cluster.requests.last()?.seq ?? 0;
    await manager.checkHealth(noAbort());
    const health = stack.cluster.requests.entries().filter((r) => r.seq > since);
    expect(health.map((r) => [r.verb, r.resource, r.namespace, r.query['limit']])).toEqual([['list', 'pods', NAMESPACE, '1']]);
  });

  it('routes a cancel to the running command from another replica (find)', async () => {
    const a = stack.replica();
    const b = stack.replica();
    await a.manager.execute('m-cancel', { command: 'true' }, noAbort());
    const running = a.manager.execute('m-cancel', { command: 'sleep 20', request_id: 'req-1' }, noAbort());
    await eventually(async () => (await b.manager.peek('m-cancel', 'req-1', noAbort()))?.running === true, 'the command to run', 10_000);
    expect(await b.manager.cancel('m-cancel', 'req-1')).toBe('stopped');
    const result = await running;
    expect(result.response.cancelled).toBe(true);
  });

  it('a cancel from another replica that overtakes the command: the agent refuses the command when it arrives', async () => {
    const a = stack.replica();
    const b = stack.replica();
    await a.manager.execute('m-early', { command: 'true' }, noAbort());
    // B's cancel reaches the agent first (A's /exec still in flight, made deterministic here by sending it after).
    expect(await b.manager.cancel('m-early', 'req-2')).toBe('waiting');
    const result = await a.manager.execute('m-early', { command: 'sleep 20; echo ran', request_id: 'req-2' }, noAbort());
    expect(result.response).toMatchObject({ cancelled: true, exit_code: 130, stdout: '' });
    expect(result.response.duration_ms).toBeLessThan(1_000);
    expect((await a.manager.execute('m-early', { command: 'echo alive' }, noAbort())).response.stdout).toBe('alive');
  });
});
