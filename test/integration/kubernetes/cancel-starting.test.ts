/**
 * C-MCP-9 across replicas while the session's sandbox is still coming up: replica A is creating (or claiming) the
 * pod for a first command when the client's cancel lands on replica B. B must not drop it: it waits for the pod to
 * serve (creation) or for A's `/assign` (claim), and the agent then stops the command or refuses it on arrival.
 * Before, B found no serving pod (or an agent without its token) and the command ran for nobody.
 */
import { sessionPodName } from '@cli-mcp/podspec';
import { eventually } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAST_KUBELET, INSTANCE, NAMESPACE, isReadyPod, labelOf, noAbort, skipReason, startKubeStack, type KubeStack } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { SESSION_ID_LABEL } from '@cli-mcp/podspec';

describeWhenReady('a cancel from another replica while the sandbox starts', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    // Pods wait 1.5 s to be scheduled: the window in which a cancel used to find nothing.
    stack = await startKubeStack({ ...FAST_KUBELET, schedulingDelayMs: 1_500 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('pod being created: B waits for it to serve, and the first command is stopped or never runs', async () => {
    const a = stack.replica({ readyTimeoutMs: 20_000 });
    const b = stack.replica({ readyTimeoutMs: 20_000 });
    const running = a.manager.execute('cs-create', { command: 'echo ran > ran.txt; sleep 20; echo not-cancelled', request_id: 'cs-1' }, noAbort());
    await eventually(() => stack.cluster.store.get('pods', NAMESPACE, sessionPodName(INSTANCE, 'cs-create')) !== undefined, 'A to create the pod');
    expect(['stopped', 'waiting']).toContain(await b.manager.cancel('cs-create', 'cs-1'));
    const result = await running;
    expect(result.response).toMatchObject({ cancelled: true, exit_code: 130 });
    expect(result.response.stdout).not.toContain('not-cancelled');
    expect(result.response.duration_ms).toBeLessThan(5_000);
  });

  it('pod just claimed, token not assigned yet: B retries until A assigns it, and the command is stopped', async () => {
    const [warm] = stack.warmPods(1);
    await stack.cluster.waitFor('pods', NAMESPACE, warm!, isReadyPod);
    let release!: () => void;
    const assignHeld = new Promise<void>((resolve) => (release = resolve));
    const a = stack.replica({ beforeAssign: () => assignHeld });
    const b = stack.replica();
    const running = a.manager.execute('cs-claim', { command: 'sleep 20; echo not-cancelled', request_id: 'cs-2' }, noAbort());
    const claimed = () => stack.pods().some((p) => labelOf(p, SESSION_ID_LABEL) === 'cs-claim');
    await eventually(claimed, 'A to claim the warm pod');
    const cancel = b.manager.cancel('cs-claim', 'cs-2');
    // B meets an agent without a token for a while (it must keep trying, not give up) before A assigns it.
    await new Promise((r) => setTimeout(r, 300));
    release();
    expect(['stopped', 'waiting']).toContain(await cancel);
    const result = await running;
    expect(result).toMatchObject({ acquirePath: 'claim', response: { cancelled: true, exit_code: 130 } });
    expect(result.response.stdout).not.toContain('not-cancelled');
  });
});
