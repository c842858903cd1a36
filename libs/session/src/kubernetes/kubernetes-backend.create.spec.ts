/**
 * On-demand creation and its failure rules (Go §3.5, §15 rows 15–18, TestGetOrCreatePodAlwaysClaims deadline
 * case), the AlreadyExists paths including a terminating pod of the same name (Go §18.14), and the recreate
 * notice rule.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { authSecretName, sessionPodName } from '@cli-mcp/podspec';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionErrorCode } from '../session-error.js';
import { KubeError } from '@cli-mcp/kube';
import { KubernetesBackend } from './kubernetes-backend.js';
import { SESSION, asCreated, asReady, backendFixture, hangingWatch, listFrom, type Fixture } from './testing/backend-fixture.js';
import { flush, kubeErrors, pod } from './testing/strict-kube-api.js';

const POD = sessionPodName('oc', SESSION);

describe(`${KubernetesBackend.name} create`, () => {
  let f: Fixture;
  let pods: V1Pod[];
  afterEach(() => {
    expect(f.api.unexpected).toEqual([]);
  });

  /** Empty cluster: lists answer from `pods`; the Secret create succeeds unless overridden. */
  function emptyCluster(options: { readyTimeoutMs?: number } = {}): void {
    f = backendFixture(options);
    pods = [];
    f.api.on('listPods', listFrom(() => pods));
    f.api.on('createSecret', async () => undefined);
  }

  /** The first pod create answers AlreadyExists (a pod holds the name); later ones land in `pods`. */
  function firstCreateCollides(): void {
    let creates = 0;
    f.api.on('createPod', async (body) => {
      if (creates++ === 0) throw kubeErrors.alreadyExists();
      const created = asCreated(body);
      pods.push(created);
      return created;
    });
  }

  it('Secret create failure → `create auth secret` error, no pod', async () => {
    emptyCluster();
    f.api.on('createSecret', async () => {
      throw kubeErrors.internal();
    });
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({
      code: SessionErrorCode.BackendFailure,
      message: 'resolve pod: create sandbox pod: create auth secret: Internal error occurred: injected fault',
    });
  });

  it('pod create failure → the Secret we made is deleted, `create pod` error', async () => {
    emptyCluster();
    f.api.on('createPod', async () => {
      throw new KubeError('Pod "x" is invalid: spec.containers[0].image: Required value', 422, 'Invalid');
    });
    f.api.on('deleteSecret', async () => undefined);
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({
      message: 'resolve pod: create sandbox pod: create pod: Pod "x" is invalid: spec.containers[0].image: Required value',
    });
    expect(f.api.callsOf('deleteSecret')).toHaveLength(1);
  });

  it('pod create failure with a pre-existing Secret → that Secret is left alone', async () => {
    emptyCluster();
    f.api.on('createSecret', async () => {
      throw kubeErrors.alreadyExists('secrets "x"');
    });
    f.api.on('createPod', async () => {
      throw kubeErrors.internal();
    });
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({ code: SessionErrorCode.BackendFailure });
    expect(f.api.callsOf('deleteSecret')).toHaveLength(0);
  });

  it('a quota rejection is reported as capacity', async () => {
    emptyCluster();
    f.api.on('createPod', async () => {
      throw new KubeError('pods "x" is forbidden: exceeded quota: sandboxes, requested: pods=1, used: pods=10, limited: pods=10', 403, 'Forbidden');
    });
    f.api.on('deleteSecret', async () => undefined);
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({ code: SessionErrorCode.CapacityExhausted });
  });

  it('created pod not Ready within the timeout → pod and Secret deleted (fresh signal), Go message', async () => {
    emptyCluster();
    f.api.on('createPod', async (body) => asCreated(body));
    f.api.on('watchPodUntil', hangingWatch);
    f.api.on('deletePod', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    const acquiring = f.sut.acquire(SESSION, new AbortController().signal).catch((e: unknown) => e);
    await flush();
    f.clock.advance(60_000);
    expect(await acquiring).toMatchObject({
      code: SessionErrorCode.SandboxUnavailable,
      message: `resolve pod: create sandbox pod: wait for pod ready: pod "${POD}" not ready within 1m0s`,
    });
    expect(f.api.callsOf('deletePod').map(([name, signal]) => [name, signal.aborted])).toEqual([[POD, false]]);
    expect(f.api.callsOf('deleteSecret')).toHaveLength(1);
  });

  it('the session Secret vanished while the pod starts (a DELETE on another replica) → fails at once, removes its pod', async () => {
    emptyCluster();
    const secret = authSecretName('oc', SESSION);
    f.api.on('createPod', async (body) => asCreated(body));
    f.api.on('watchPodUntil', async (_name, _rv, until) => {
      const blocked = asCreated({ metadata: { name: POD } });
      blocked.status!.containerStatuses = [
        { name: 'sandbox', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'CreateContainerConfigError', message: `secret "${secret}" not found` } } },
      ];
      expect(until(blocked)).toBe(true);
      return { type: 'matched', pod: blocked };
    });
    f.api.on('deletePod', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    // No clock advance: the wait ends on the pod's status, not at the 60 s deadline.
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({
      code: SessionErrorCode.SandboxUnavailable,
      message: `resolve pod: create sandbox pod: wait for pod ready: the session's auth Secret "${secret}" was deleted while the pod was starting (was the session ended?)`,
    });
    expect(f.api.callsOf('deletePod').map(([name]) => name)).toEqual([POD]);
    expect(f.api.callsOf('deleteSecret')).toHaveLength(1);
  });

  it('caller deadline while the created pod starts → cancelled, pod and Secret remain for siblings', async () => {
    emptyCluster();
    f.api.on('createPod', async (body) => asCreated(body));
    f.api.on('watchPodUntil', hangingWatch);
    const caller = new AbortController();
    const acquiring = f.sut.acquire(SESSION, caller.signal).catch((e: unknown) => e);
    await flush();
    caller.abort(new DOMException('deadline', 'TimeoutError'));
    expect(await acquiring).toMatchObject({ code: SessionErrorCode.Cancelled });
    expect(f.api.callsOf('deletePod')).toHaveLength(0);
    expect(f.api.callsOf('deleteSecret')).toHaveLength(0);
  });

  it('DELETE of the session during the wait → the acquisition stops and removes what it made', async () => {
    emptyCluster();
    f.api.on('createPod', async (body) => asCreated(body));
    f.api.on('watchPodUntil', hangingWatch);
    f.api.on('deletePod', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    const acquiring = f.sut.acquire(SESSION, new AbortController().signal).catch((e: unknown) => e);
    await flush();
    await f.sut.end(SESSION, new AbortController().signal);
    expect(await acquiring).toMatchObject({ code: SessionErrorCode.SandboxUnavailable, message: 'resolve pod: the session was ended while its sandbox was being prepared' });
    // Deleted by the failed wait's cleanup, and again by the post-abort sweep (a write may have landed late).
    expect(new Set(f.api.callsOf('deletePod').map(([name]) => name))).toEqual(new Set([POD]));
  });

  it('pod AlreadyExists held by a terminating pod (DELETE then reuse) → waits for it to go, creates again (a new session)', async () => {
    emptyCluster();
    const terminating = pod({ name: POD, session: SESSION, deleting: true });
    pods.push(terminating);
    firstCreateCollides();
    f.api.on('getPod', async () => terminating);
    f.api.on('watchPodUntil', async (name, _rv, until) => {
      const current = pods.find((p) => p.metadata?.name === name) as V1Pod;
      if (current === terminating) {
        pods.splice(pods.indexOf(terminating), 1);
        return { type: 'deleted', pod: terminating };
      }
      expect(until(asReady(current))).toBe(true);
      return { type: 'matched', pod: asReady(current) };
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ sandboxName: POD, path: 'create', recreated: false });
    expect(f.api.callsOf('deletePod')).toHaveLength(0);
  });

  it('pod AlreadyExists held by a finished pod → deletes it, then creates again', async () => {
    emptyCluster();
    const failed = pod({ name: POD, session: SESSION, phase: 'Failed', ready: false });
    pods.push(failed);
    firstCreateCollides();
    f.api.on('getPod', async () => failed);
    f.api.on('deletePod', async () => void pods.splice(pods.indexOf(failed), 1));
    f.api.on('watchPodUntil', async (name) => {
      if (!pods.some((p) => p.metadata?.name === name && p !== failed) && !pods.includes(failed)) return { type: 'deleted', pod: failed };
      return { type: 'matched', pod: asReady(pods.find((p) => p.metadata?.name === name) as V1Pod) };
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ path: 'create', recreated: true });
    expect(f.api.callsOf('deletePod').map(([name]) => name)).toEqual([POD]);
  });

  it('pod AlreadyExists, live but not discoverable → `pod exists but not discoverable`', async () => {
    emptyCluster();
    f.api.on('createPod', async () => {
      throw kubeErrors.alreadyExists();
    });
    // Same name, but without our session label (tampered): discovery cannot see it, and it is not ours to replace.
    f.api.on('getPod', async () => pod({ name: POD }));
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({
      code: SessionErrorCode.SandboxUnavailable,
      message: `resolve pod: pod exists but not discoverable for session "${SESSION}"`,
    });
  });
});

describe(`${KubernetesBackend.name} recreate notice`, () => {
  it('is set when this replica handed out a different pod for the session before (no DELETE in between)', async () => {
    const f = backendFixture();
    let pods: V1Pod[] = [pod({ name: 'first', session: SESSION, uid: 'uid-1' })];
    f.api.on('listPods', listFrom(() => pods));
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ path: 'discover', recreated: false });
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ path: 'discover', recreated: false });
    // The pod vanished and another replica (or this one) made a new one.
    pods = [pod({ name: 'second', session: SESSION, uid: 'uid-2' })];
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ sandboxName: 'second', recreated: true });
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ sandboxName: 'second', recreated: false });
  });

  it('is not set for a brand-new session, nor after DELETE', async () => {
    const f = backendFixture();
    let pods: V1Pod[] = [pod({ name: 'first', session: SESSION, uid: 'uid-1' })];
    f.api.on('listPods', listFrom(() => pods));
    f.api.on('deletePod', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    await f.sut.acquire(SESSION, new AbortController().signal);
    await f.sut.end(SESSION, new AbortController().signal);
    pods = [pod({ name: 'second', session: SESSION, uid: 'uid-2' })];
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ recreated: false });
    expect(f.api.unexpected).toEqual([]);
  });
});

describe(`${KubernetesBackend.name} recreate notice after a container restart`, () => {
  it('is set once when the same pod shows more container restarts than when this replica last handed it out', async () => {
    const f = backendFixture();
    const withRestarts = (n: number): V1Pod => {
      const p = pod({ name: 'sbx', session: SESSION, uid: 'uid-1' });
      p.status!.containerStatuses = [{ name: 'sandbox', image: 'i', imageID: '', ready: true, restartCount: n }];
      return p;
    };
    let current = withRestarts(0);
    f.api.on('listPods', listFrom(() => [current]));
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ recreated: false });
    current = withRestarts(1);
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ recreated: true });
    expect(await f.sut.acquire(SESSION, new AbortController().signal)).toMatchObject({ recreated: false });
  });
});
