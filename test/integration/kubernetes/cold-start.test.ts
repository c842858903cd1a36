/**
 * Issue 11: a new session's first command does not wait for the kubelet's readiness probe. The kubelet here probes
 * first after 60 s (and every 60 s), so a pod never turns Ready within a test: every command below reached its
 * agent because the server asked the agent's /health itself once the pod ran with an IP. Without that, each case
 * would run into its 20 s ready timeout.
 */
import { SESSION_ID_LABEL, sessionPodName } from '@cli-mcp/podspec';
import { eventually, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAST_KUBELET, INSTANCE, NAMESPACE, isReadyPod, labelOf, noAbort, skipReason, startKubeStack, type KubeStack } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const SLOW_PROBE = { ...FAST_KUBELET, readinessTiming: { initialDelayMs: 60_000, periodMs: 60_000 } };

function runsWithIp(pod: KubeObject | undefined): boolean {
  const status = pod?.['status'] as { phase?: string; podIP?: string } | undefined;
  return status?.phase === 'Running' && typeof status.podIP === 'string';
}

describeWhenReady('Kubernetes cold start without readiness-probe waits', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack(SLOW_PROBE);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const pod = (session: string): KubeObject | undefined => stack.cluster.store.get('pods', NAMESPACE, sessionPodName(INSTANCE, session));

  it('create: the first command runs in the new pod before the kubelet ever marks it Ready', async () => {
    const replica = stack.replica({ readyTimeoutMs: 20_000 });
    const result = await replica.manager.execute('cold-create', { command: 'echo first; echo $HOSTNAME' }, noAbort());
    expect(result).toMatchObject({ acquirePath: 'create', response: { stdout: `first\n${sessionPodName(INSTANCE, 'cold-create')}`, exit_code: 0 } });
    expect(isReadyPod(pod('cold-create'))).toBe(false);
    expect(replica.logs).toContainEqual(expect.objectContaining({ message: 'created sandbox pod', fields: expect.objectContaining({ ready_by: 'agent' }) }));
  });

  it('discover: a sibling replica joins a pod that is still not Ready, through its agent, and shares its shell', async () => {
    const a = stack.replica({ readyTimeoutMs: 20_000 });
    await a.manager.execute('cold-discover', { command: 'echo kept > marker' }, noAbort());
    const b = stack.replica({ readyTimeoutMs: 20_000 });
    const joined = await b.manager.execute('cold-discover', { command: 'cat marker' }, noAbort());
    expect(joined).toMatchObject({ acquirePath: 'discover', response: { stdout: 'kept' } });
    expect(isReadyPod(pod('cold-discover'))).toBe(false);
  });

  it('cancel and progress: a sibling replica finds the command running in a pod that is not Ready yet', async () => {
    const a = stack.replica({ readyTimeoutMs: 20_000 });
    await a.manager.execute('cold-cancel', { command: 'true' }, noAbort());
    const running = a.manager.execute('cold-cancel', { command: 'echo started; sleep 30.6161; echo not-cancelled', request_id: 'cold-1' }, noAbort());
    // Another replica: no cache, so it discovers the pod — which the kubelet has not marked Ready.
    const b = stack.replica({ readyTimeoutMs: 20_000 });
    const peek = () => b.manager.peek('cold-cancel', 'cold-1', noAbort());
    await eventually(async () => (await peek())?.stdout?.includes('started') === true, 'the sibling to see the command', 10_000).catch(() => undefined);
    expect(await peek()).toMatchObject({ running: true, stdout: expect.stringContaining('started') });
    expect(await b.manager.cancel('cold-cancel', 'cold-1')).toBe('stopped');
    const result = await running;
    expect(result.response).toMatchObject({ cancelled: true });
    expect(result.response.stdout).not.toContain('not-cancelled');
    expect(isReadyPod(pod('cold-cancel'))).toBe(false);
  });

  it('claim: a warm pod that runs but is not Ready yet is claimed, assigned and used; it stays not Ready', async () => {
    const [warm] = stack.warmPods(1);
    await stack.cluster.waitFor('pods', NAMESPACE, warm as string, runsWithIp);
    const replica = stack.replica({ readyTimeoutMs: 20_000 });
    const result = await replica.manager.execute('cold-claim', { command: 'echo claimed' }, noAbort());
    expect(result).toMatchObject({ acquirePath: 'claim', response: { stdout: 'claimed' } });
    const claimed = stack.cluster.store.get('pods', NAMESPACE, warm as string);
    expect(claimed && labelOf(claimed, SESSION_ID_LABEL)).toBe('cold-claim');
    // The kubelet's view is untouched: pool accounting (the controller) still sees a pod that is not Ready.
    expect(isReadyPod(claimed)).toBe(false);
    expect(replica.logs).toContainEqual(expect.objectContaining({ message: 'claimed unassigned sandbox pod', fields: expect.objectContaining({ ready_by: 'agent' }) }));
  });
});
