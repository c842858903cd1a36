/**
 * Claim and create races between replicas (issue 7, C-AG-13, C-K8S-4) and claim tightening (C-CTL-5): real
 * SessionManagers on one fake API server with real agents. Each interleaving is forced at an exact point — a hook
 * in front of one replica's `/assign`, or a fault rule that holds one API request — never by timing.
 */
import { randomBytes } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import { AgentClient } from '@cli-mcp/agent-client';
import { SESSION_ID_LABEL, UNCLAIMABLE_ANNOTATION, authSecretName, buildSessionPod, buildWarmPod, warmPodName, isCrashLooping } from '@cli-mcp/podspec';
import { PODS, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INSTANCE, NAMESPACE, deferred, isReadyPod, labelOf, noAbort, skipReason, startKubeStack, type KubeStack } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

describeWhenReady('claim and create races (issue 7), claim tightening (C-CTL-5)', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const livePods = (session: string) => stack.livePods(session);
  const podOf = (name: string) => stack.cluster.store.get('pods', NAMESPACE, name);
  const agentUrl = (pod: string): string => `http://${stack.cluster.kubelet!.podIp(NAMESPACE, pod)}:8090`;

  async function readyWarmPod(): Promise<string> {
    const [name] = stack.warmPods(1);
    await stack.cluster.waitFor('pods', NAMESPACE, name as string, isReadyPod);
    return name as string;
  }

  it('a sibling delivers the token before the claimer\'s /assign: the claimer keeps the pod both serve (never deletes it)', async () => {
    const warm = await readyWarmPod();
    const arrived = deferred();
    const release = deferred();
    const a = stack.replica({
      beforeAssign: async () => {
        arrived.resolve();
        await release.promise;
      },
    });
    const b = stack.replica();
    // A labels the pod and creates the Secret, then stops right before POST /assign.
    const fromA = a.manager.execute('r-same-token', { command: 'echo "a in $HOSTNAME"' }, noAbort());
    await arrived.promise;
    // B discovers the labelled pod, gets 503 "not assigned", re-delivers the same token and runs its command.
    const fromB = await b.manager.execute('r-same-token', { command: 'echo "b in $HOSTNAME"' }, noAbort());
    expect(fromB.response.stdout).toBe(`b in ${warm}`);
    // Now A's /assign: an agent predating C-AG-13 answers 409 to any second assign, a C-AG-13 agent 200.
    release.resolve();
    expect((await fromA).response.stdout).toBe(`a in ${warm}`);

    expect(podOf(warm)?.metadata.deletionTimestamp).toBeUndefined();
    expect(livePods('r-same-token').map((p) => p.metadata.name)).toEqual([warm]);
    expect(stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, 'r-same-token'))).toBeDefined();
    expect((await b.manager.execute('r-same-token', { command: 'echo still' }, noAbort())).response.stdout).toBe('still');
    await a.manager.end('r-same-token', noAbort());
  });

  it('a warm pod whose agent holds another token is not deleted by the claimer: unlabelled, marked, skipped by later claims', async () => {
    const poisoned = await readyWarmPod();
    // An earlier claim's /assign landed although its caller saw a failure: the pod went back holding that token.
    const direct = new AgentClient();
    await direct.assign(agentUrl(poisoned), 'f'.repeat(64));
    direct.close();

    const a = stack.replica();
    const first = await a.manager.execute('r-foreign', { command: 'echo $HOSTNAME' }, noAbort());
    expect(first.response.stdout).not.toBe(poisoned);
    const pod = podOf(poisoned);
    expect(pod?.metadata.deletionTimestamp).toBeUndefined();
    expect(labelOf(pod!, SESSION_ID_LABEL)).toBeUndefined();
    expect((pod?.metadata.annotations as Record<string, string>)[UNCLAIMABLE_ANNOTATION]).toBe('token-conflict');

    // No claimer touches it again (the controller replaces it in the pool, C-CTL-6).
    const since = stack.cluster.requests.last()?.seq ?? 0;
    const second = await stack.replica().manager.execute('r-foreign-2', { command: 'true' }, noAbort());
    expect(second.acquirePath).toBe('create');
    expect(stack.cluster.requests.entries({ verb: 'patch', resource: 'pods' }).filter((r) => r.name === poisoned && r.seq > since)).toEqual([]);
    await a.manager.end('r-foreign', noAbort());
    await a.manager.end('r-foreign-2', noAbort());
  });

  it('a create whose Secret a DELETE on another replica removed fails fast with a clear error and leaves nothing behind', async () => {
    const arrived = deferred();
    const release = deferred();
    // Hold A's pod create after its Secret exists; B's DELETE then finds no pod and removes the Secret.
    stack.cluster.faults.add({
      method: 'POST',
      pathPattern: new RegExp(`/namespaces/${NAMESPACE}/pods$`),
      times: 1,
      hold: () => {
        arrived.resolve();
        return release.promise;
      },
    });
    const a = stack.replica({ readyTimeoutMs: 60_000 });
    const exec = a.manager.execute('r-secret', { command: 'true' }, noAbort()).then(
      () => 'succeeded',
      (error: unknown) => (error as Error).message,
    );
    await arrived.promise;
    await stack.replica().manager.end('r-secret', noAbort());
    release.resolve();

    const message = await exec;
    expect(message).toMatch(/auth Secret "cli-mcp-auth-oc-r-secret-[0-9a-f]{8}" was deleted while the pod was starting/);
    expect(message).not.toMatch(/not ready within/);
    expect(livePods('r-secret')).toEqual([]);
    expect(stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, 'r-secret'))).toBeUndefined();
  });

  it('a claim that finds an older serving pod of the session keeps that one and deletes its own; the Secret stays', async () => {
    const [warm] = stack.warmPods(1);
    await stack.cluster.waitFor('pods', NAMESPACE, warm as string, isReadyPod);
    let older = '';
    const a = stack.replica({
      // Between A's Secret and A's /assign, a pod of the session made earlier shows up (e.g. by a replica whose
      // rollback failed): two live pods for one session.
      beforeAssign: async () => {
        if (older !== '') return;
        const pod = buildSessionPod(stack.cfg, INSTANCE, 't-older', new Date(Date.now() - 3_600_000));
        older = stack.cluster.api.create(PODS, NAMESPACE, pod).metadata.name as string;
        await stack.cluster.waitFor('pods', NAMESPACE, older, isReadyPod);
      },
    });
    const result = await a.manager.execute('t-older', { command: 'echo $HOSTNAME' }, noAbort());
    expect(result).toMatchObject({ acquirePath: 'claim', response: { stdout: older } });
    expect(livePods('t-older').map((p) => p.metadata.name)).toEqual([older]);
    expect(stack.cluster.store.get('pods', NAMESPACE, warm as string)?.metadata.deletionTimestamp ?? 'gone').toBeTruthy();
    const deletes = stack.cluster.requests.entries({ verb: 'delete', resource: 'pods' }).filter((r) => r.name === warm);
    expect(deletes.map((r) => (r.body as { preconditions?: unknown } | undefined)?.preconditions)).toEqual([
      { uid: expect.any(String), resourceVersion: expect.any(String) },
    ]);
    expect(stack.cluster.store.get('secrets', NAMESPACE, authSecretName(INSTANCE, 't-older'))).toBeDefined();
    await a.manager.end('t-older', noAbort());
  });

  it('claims skip a crash-looping unassigned pod (its container keeps exiting) and create instead', async () => {
    const pod = buildWarmPod(stack.cfg, warmPodName(INSTANCE, randomBytes), new Date()) as unknown as KubeObject;
    // An agent that cannot start: its configuration is refused at every start (SANDBOX_MAX_TIMEOUT_SECONDS=0).
    const container = (pod['spec'] as { containers: Array<{ env: Array<{ name: string; value?: string }> }> }).containers[0]!;
    container.env = container.env.map((e) => (e.name === 'SANDBOX_MAX_TIMEOUT_SECONDS' ? { ...e, value: '0' } : e));
    const name = stack.cluster.api.create(PODS, NAMESPACE, pod).metadata.name as string;
    await stack.cluster.waitFor('pods', NAMESPACE, name, (p) => p !== undefined && isCrashLooping(p as unknown as V1Pod));

    const since = stack.cluster.requests.last()?.seq ?? 0;
    const result = await stack.replica().manager.execute('t-crash', { command: 'true' }, noAbort());
    expect(result.acquirePath).toBe('create');
    expect(stack.cluster.requests.entries({ verb: 'patch', resource: 'pods' }).filter((r) => r.name === name && r.seq > since)).toEqual([]);
    expect(labelOf(stack.cluster.store.get('pods', NAMESPACE, name) as KubeObject, SESSION_ID_LABEL)).toBeUndefined();
    await stack.replica().manager.end('t-crash', noAbort());
  });
});
