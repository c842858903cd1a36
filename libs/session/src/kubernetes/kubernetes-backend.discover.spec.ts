/**
 * Discovery tier and on-demand creation — Go pkg/session manager_test `TestGetOrCreatePod` (Go §17.1/§17.2)
 * re-expressed against the strict KubeApi fake. (Cache hits and session-id validation belong to the
 * SessionManager and are tested there.)
 */
import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { authSecretName, sessionPodName } from '@cli-mcp/podspec';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionError, SessionErrorCode } from '../session-error.js';
import { KubernetesBackend } from './kubernetes-backend.js';
import { SESSION, TOKEN, asCreated, asReady, backendFixture, hangingWatch, listFrom, type Fixture } from './testing/backend-fixture.js';
import { flush, kubeErrors, pod } from './testing/strict-kube-api.js';

const ASSIGNED = 'cli-mcp.redhat.com/instance=oc,cli-mcp.redhat.com/component=sandbox,cli-mcp.redhat.com/session-id=inv-abc-123';

describe(`${KubernetesBackend.name} discovery (TestGetOrCreatePod)`, () => {
  let f: Fixture;
  afterEach(() => {
    expect(f.api.unexpected).toEqual([]);
    expect(f.agent.unexpected).toBe(0);
  });

  /** On-demand create that the kubelet makes Ready through the watch. */
  function acceptCreate(fx: Fixture, pods: V1Pod[]): { secrets: V1Secret[] } {
    const secrets: V1Secret[] = [];
    fx.api.on('createSecret', async (secret) => void secrets.push(secret));
    fx.api.on('createPod', async (body) => {
      const created = asCreated(body);
      pods.push(created);
      return created;
    });
    fx.api.on('watchPodUntil', async (name) => ({ type: 'matched', pod: asReady(pods.find((p) => p.metadata?.name === name) as V1Pod) }));
    return { secrets };
  }

  it('discovers an existing Ready pod with the exact instance-scoped selector', async () => {
    f = backendFixture();
    const existing = pod({ name: 'sbx-1', session: SESSION, ip: '10.1.2.3' });
    f.api.on('listPods', listFrom(() => [existing]));
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toEqual({ sessionId: SESSION, agentUrl: 'http://10.1.2.3:8090', token: TOKEN, sandboxName: 'sbx-1', path: 'discover', recreated: false });
    expect(f.api.callsOf('listPods').map(([q]) => q.labelSelector)).toEqual([ASSIGNED]);
  });

  it('waits (by watch) for a pending labelled pod that becomes Ready', async () => {
    f = backendFixture();
    const pending = pod({ name: 'sbx-1', session: SESSION, ready: false, rv: '7' });
    f.api.on('listPods', listFrom(() => [pending]));
    f.api.on('watchPodUntil', async (name, rv) => {
      expect([name, rv]).toEqual(['sbx-1', '7']);
      return { type: 'matched', pod: pod({ name: 'sbx-1', session: SESSION, ip: '10.0.0.5' }) };
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ agentUrl: 'http://10.0.0.5:8090', path: 'discover' });
  });

  it('picks the oldest of two Ready pods', async () => {
    f = backendFixture();
    const young = pod({ name: 'young', session: SESSION, created: '2026-07-29T10:10:00Z' });
    const old = pod({ name: 'old', session: SESSION, created: '2026-07-29T10:00:00Z' });
    f.api.on('listPods', listFrom(() => [young, old]));
    expect((await f.sut.acquire(SESSION, new AbortController().signal)).sandboxName).toBe('old');
  });

  it('creates on demand: Secret first (token, instance labels), then the deterministic pod', async () => {
    f = backendFixture();
    const pods: V1Pod[] = [];
    const { secrets } = acceptCreate(f, pods);
    f.api.on('listPods', listFrom(() => pods));
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ sandboxName: sessionPodName('oc', SESSION), path: 'create', recreated: false, token: TOKEN });
    expect(f.api.sequence).toEqual(['listPods', 'listPods', 'createSecret', 'createPod', 'watchPodUntil']);
    expect(secrets[0]?.metadata?.name).toBe(authSecretName('oc', SESSION));
    expect(secrets[0]?.stringData).toEqual({ token: TOKEN });
    expect(secrets[0]?.metadata?.labels?.['cli-mcp.redhat.com/instance']).toBe('oc');
    expect(f.api.callsOf('createPod')[0]?.[0].metadata?.labels?.['cli-mcp.redhat.com/session-id']).toBe(SESSION);
  });

  it('pod create AlreadyExists → rediscovers the sibling pod and uses it', async () => {
    f = backendFixture();
    const sibling = pod({ name: sessionPodName('oc', SESSION), session: SESSION, ip: '10.0.0.7' });
    let lists = 0;
    f.api.on('listPods', async (query) => {
      lists++;
      // Nothing at first; the sibling's pod appears between our Secret create and our pod create.
      return { items: lists >= 3 && query.labelSelector === ASSIGNED ? [sibling] : [] };
    });
    f.api.on('createSecret', async () => {
      throw kubeErrors.alreadyExists('secrets "x"');
    });
    f.api.on('createPod', async () => {
      throw kubeErrors.alreadyExists();
    });
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ sandboxName: sibling.metadata?.name, path: 'discover', recreated: false });
    expect(f.api.callsOf('deleteSecret')).toHaveLength(0);
  });

  it('does not discover a pod of another instance: a pod for instance "oc" is created', async () => {
    f = backendFixture();
    const pods: V1Pod[] = [pod({ name: 'aws-pod', session: SESSION, instance: 'aws' }), pod({ name: 'aws-warm', instance: 'aws' })];
    acceptCreate(f, pods);
    f.api.on('listPods', listFrom(() => pods));
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ sandboxName: sessionPodName('oc', SESSION), path: 'create' });
  });

  it('skips terminating and finished pods of the session (Go §18.14) and reports the sandbox as recreated', async () => {
    f = backendFixture();
    const pods: V1Pod[] = [pod({ name: 'old-evicted', session: SESSION, phase: 'Failed', ready: false })];
    acceptCreate(f, pods);
    f.api.on('listPods', listFrom(() => pods));
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toMatchObject({ path: 'create', recreated: true });
  });

  it('a failing list stops the acquisition with the Go message; nothing is created', async () => {
    f = backendFixture();
    f.api.on('listPods', async () => {
      throw kubeErrors.internal();
    });
    const error = await f.sut.acquire(SESSION, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionError);
    expect(error).toMatchObject({ code: SessionErrorCode.BackendFailure, message: 'resolve pod: discover pod: list pods: Internal error occurred: injected fault' });
  });

  it('a discovered pod that stays non-Ready fails after the ready timeout and is left alone', async () => {
    f = backendFixture();
    f.api.on('listPods', listFrom(() => [pod({ name: 'stuck', session: SESSION, ready: false })]));
    f.api.on('watchPodUntil', hangingWatch);
    const acquiring = f.sut.acquire(SESSION, new AbortController().signal).catch((e: unknown) => e);
    await flush();
    f.clock.advance(60_000);
    expect(await acquiring).toMatchObject({
      code: SessionErrorCode.SandboxUnavailable,
      message: 'resolve pod: discover pod: pod "stuck" not ready within 1m0s',
    });
    expect(f.api.callsOf('deletePod')).toHaveLength(0);
  });
});

describe(`${KubernetesBackend.name}.find`, () => {
  let f: Fixture;
  afterEach(() => expect(f.api.unexpected).toEqual([]));

  it('returns the Ready pod, or undefined for a pending one — never waits or creates', async () => {
    f = backendFixture();
    let pods = [pod({ name: 'p1', session: SESSION, ip: '10.0.0.3' })];
    f.api.on('listPods', listFrom(() => pods));
    expect(await f.sut.find(SESSION, new AbortController().signal)).toMatchObject({ sandboxName: 'p1', agentUrl: 'http://10.0.0.3:8090', token: TOKEN });
    pods = [pod({ name: 'p1', session: SESSION, ready: false })];
    expect(await f.sut.find(SESSION, new AbortController().signal)).toBeUndefined();
    pods = [];
    expect(await f.sut.find(SESSION, new AbortController().signal)).toBeUndefined();
    expect(f.api.sequence).toEqual(['listPods', 'listPods', 'listPods']);
  });
});
