/**
 * The warm pool end to end in one process (C-CTL-2, C-CTL-6): the real controller runtime on client-node against
 * the fake API server, a kubelet simulator running REAL agents, and a real server replica (SessionManager +
 * KubernetesBackend) that claims pool pods.
 */
import { SESSION_ID_LABEL, SPEC_HASH_ANNOTATION, isWarmPodName, sandboxSpecHash, validateSandboxPodConfig } from '@cli-mcp/podspec';
import { PODS, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { INSTANCE, NAMESPACE, isReadyPod, noAbort, skipReason } from '../kubernetes/support/kube-stack.js';
import { startControllerStack, untilCluster, untilController, type ControllerStack } from './support/controller-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

let stack: ControllerStack;

const unassigned = (): KubeObject[] => stack.pods().filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined && !p.metadata.deletionTimestamp);
const readyPool = (): KubeObject[] => unassigned().filter(isReadyPod);
const podCreates = (): number => stack.cluster.requests.count({ verb: 'create', resource: 'pods' });
const podOf = (session: string): KubeObject | undefined => stack.pods().find((p) => p.metadata.labels?.[SESSION_ID_LABEL] === session);

describeWhenReady('warm pool (controller + fake cluster + real agents)', skipReason, () => {
  beforeAll(async () => {
    stack = await startControllerStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('reaches N Ready pods; a new session is served from the pool (claim) and the claimed pod is refilled at once', async () => {
    const ctl = stack.controller({ poolSize: 2 });
    onTestFinished(() => ctl.stop());
    await untilCluster(stack, () => readyPool().length === 2, 'two Ready pool pods');
    expect(unassigned().every((p) => isWarmPodName(p.metadata.name as string))).toBe(true);
    expect(podCreates()).toBe(2);

    const replica = stack.replica();
    const result = await replica.manager.execute('pool-1', { command: 'echo from-the-pool' }, noAbort());
    expect(result.response.stdout).toBe('from-the-pool');
    expect(await replica.registry.getSingleMetricAsString('cli_mcp_session_acquire_seconds')).toMatch(/path="claim"} 1/);
    expect(isWarmPodName(podOf('pool-1')!.metadata.name as string)).toBe(true);

    await untilCluster(stack, () => readyPool().length === 2, 'the pool refilled');
    expect(podCreates()).toBe(3); // exactly one create for the one claim
    expect(await ctl.registry.getSingleMetricAsString('cli_mcp_controller_claims_observed_total')).toContain(' 1');
    await untilController(ctl, () => ctl.runtime.status().pool.ready === 2, 'the controller to see the refill');
    expect(ctl.runtime.status()).toMatchObject({ role: 'leader', apiProblem: undefined, pool: { desired: 2, ready: 2, shortfall: false } });
  });

  it('trims the surplus oldest first — and a pod claimed between its re-read and its delete survives (precondition, forced)', async () => {
    const before = readyPool()
      .sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)))
      .map((p) => p.metadata.name as string);
    expect(before).toHaveLength(2);
    const [oldest, youngest] = before as [string, string];
    // The claim lands the instant the controller's DELETE of the oldest pod arrives, after its re-read (GET).
    const stopForcing = stack.cluster.requests.onRecord((record) => {
      if (record.method === 'DELETE' && record.resource === 'pods' && record.name === oldest) {
        stack.cluster.api.patch(PODS, NAMESPACE, oldest, 'merge', { metadata: { labels: { [SESSION_ID_LABEL]: 'sneaky' } } });
      }
    });
    const reread = stack.cluster.requests.count({ verb: 'get', resource: 'pods' });
    const ctl = stack.controller({ poolSize: 1 });
    onTestFinished(() => ctl.stop());
    await untilCluster(stack, () => stack.cluster.requests.count({ method: 'DELETE', resource: 'pods', status: 409 }) === 1, 'the refused delete');
    stopForcing();
    expect(stack.cluster.requests.count({ verb: 'get', resource: 'pods' })).toBeGreaterThan(reread);
    const survivor = stack.cluster.store.get('pods', NAMESPACE, oldest)!;
    expect(survivor.metadata.deletionTimestamp).toBeUndefined();
    expect(survivor.metadata.labels?.[SESSION_ID_LABEL]).toBe('sneaky');
    // The pool now holds exactly the young pod: nothing else is trimmed or created.
    expect(unassigned().map((p) => p.metadata.name)).toEqual([youngest]);
  });

  it('recreates only unassigned pods when the spec changes, and replaces a Failed pool pod', async () => {
    const result = validateSandboxPodConfig({ ...rawOf(stack), image: 'quay.io/codeready-toolchain/cli-mcp-sandbox:next' });
    if (!result.ok) throw new Error(result.errors.join('; '));
    const assignedBefore = stack.pods().filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] !== undefined).map((p) => p.metadata.uid);
    const ctl = stack.controller({ poolSize: 1, podConfig: result.config });
    onTestFinished(() => ctl.stop());
    const next = sandboxSpecHash(result.config);
    await untilCluster(stack, () => readyPool().length === 1 && readyPool()[0]!.metadata.annotations?.[SPEC_HASH_ANNOTATION] === next, 'a pool pod of the new spec');
    const assignedAfter = stack.pods().filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] !== undefined && !p.metadata.deletionTimestamp).map((p) => p.metadata.uid);
    expect(assignedAfter).toEqual(assignedBefore);

    const failed = readyPool()[0]!.metadata.name as string;
    await stack.cluster.kubelet!.failPod(NAMESPACE, failed, { reason: 'Evicted', message: 'node ran out of ephemeral storage' });
    await untilCluster(stack, () => readyPool().length === 1 && readyPool()[0]!.metadata.name !== failed, 'a replacement for the Failed pod');
    await untilCluster(stack, () => stack.cluster.store.get('pods', NAMESPACE, failed) === undefined, 'the Failed pod deleted');
    expect(await ctl.registry.getSingleMetricAsString('cli_mcp_controller_pool_deletions_total')).toMatch(/reason="broken"} 1/);
  });
});

/** The stack's pod settings as raw input (to derive a changed spec). */
function rawOf(s: ControllerStack) {
  const cfg = s.cfg;
  return {
    namespace: cfg.namespace, instanceName: INSTANCE, image: cfg.image, serviceAccountName: cfg.serviceAccountName,
    kubeconfigSecret: cfg.kubeconfigSecret, terminationGracePeriodSeconds: cfg.terminationGracePeriodSeconds,
  };
}
