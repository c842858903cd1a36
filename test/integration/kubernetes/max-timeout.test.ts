/**
 * C-AG-14 on Kubernetes: the server's `--max-timeout` reaches the agent of every sandbox pod (pod env from the
 * SandboxPodConfig), so a 600 s call is not silently cut to the agent's own 300 s default. Observed on the REAL
 * agents the fake kubelet runs: each logs the timeout it applies to a queued command (debug level).
 */
import { sessionPodName } from '@cli-mcp/podspec';
import { eventually } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAST_KUBELET, INSTANCE, NAMESPACE, isReadyPod, noAbort, skipReason, startKubeStack, type KubeStack } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

describeWhenReady('--max-timeout 600 on Kubernetes (C-AG-14)', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack({ ...FAST_KUBELET, extraEnv: { SANDBOX_LOG_LEVEL: 'debug' } }, { maxTimeoutSeconds: 600 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** The timeouts (ms) the pod's agent applied, from its `command queued` records. */
  function appliedTimeouts(pod: string): number[] {
    return stack.cluster.kubelet!.agentLogs(NAMESPACE, pod)
      .split('\n')
      .filter((line) => line.includes('"command queued"'))
      .map((line) => (JSON.parse(line) as { timeout_ms: number }).timeout_ms);
  }

  /**
   * The agent writes the record before it answers, but on another descriptor than the answer: this process may see
   * the answer first (CI, Node 20 pass, once) — so wait, boundedly, until `count` records arrived.
   */
  async function loggedTimeouts(pod: string, count: number): Promise<number[]> {
    await eventually(() => appliedTimeouts(pod).length >= count, `${count} command records`, 5_000).catch(() => undefined);
    return appliedTimeouts(pod);
  }

  it('a created pod\'s agent applies 600 s to a call that asks for 600 s (and caps above it)', async () => {
    const { manager } = stack.replica();
    await manager.execute('t-create', { command: 'true', timeout: 600 }, noAbort());
    await manager.execute('t-create', { command: 'true', timeout: 900 }, noAbort());
    expect(await loggedTimeouts(sessionPodName(INSTANCE, 't-create'), 2)).toEqual([600_000, 600_000]);
  });

  it('so does a claimed warm pod\'s agent (the controller builds pool pods from the same config)', async () => {
    const [warm] = stack.warmPods(1);
    await stack.cluster.waitFor('pods', NAMESPACE, warm as string, isReadyPod);
    const { manager } = stack.replica();
    const result = await manager.execute('t-claim', { command: 'true', timeout: 600 }, noAbort());
    expect(result.acquirePath).toBe('claim');
    expect(await loggedTimeouts(warm as string, 1)).toEqual([600_000]);
  });
});
