import { AgentErrorCode } from '@cli-mcp/agent-client';
/**
 * touch (C-K8S-6), release (C-K8S-8, Go TestCleanupSession), checkHealth (C-HTTP-2, Go
 * TestK8sHealthCheckerListsPodsInNamespace), reassign (C-K8S-7), shutdown, and C-AUTH-2 (no token in messages).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { LAST_ACTIVITY_ANNOTATION, authSecretName } from '@cli-mcp/podspec';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import { KubernetesBackend } from './kubernetes-backend.js';
import { NOW_STAMP, SESSION, TOKEN, backendFixture, hangingWatch, listFrom, type Fixture } from './testing/backend-fixture.js';
import { agentErrors, flush, kubeErrors, pod } from './testing/strict-kube-api.js';

const ASSIGNED = 'cli-mcp.redhat.com/instance=oc,cli-mcp.redhat.com/component=sandbox,cli-mcp.redhat.com/session-id=inv-abc-123';

function handleFor(name = 'sbx-1'): SandboxHandle {
  return { sessionId: SESSION, agentUrl: 'http://10.0.0.1:8090', token: TOKEN, sandboxName: name, path: 'discover' };
}

describe(`${KubernetesBackend.name}.touch`, () => {
  let f: Fixture;
  afterEach(() => expect(f.api.unexpected).toEqual([]));

  it('patches last-activity at most once per interval per session, off the critical path', async () => {
    f = backendFixture({ activityIntervalMs: 30_000 });
    let release!: () => void;
    f.api.on('mergePatchPod', () => new Promise<V1Pod>((resolve) => (release = () => resolve(pod({ name: 'sbx-1' })))));
    // touch returns synchronously even though the patch is still in flight.
    expect(f.sut.touch(handleFor())).toBeUndefined();
    await flush();
    expect(f.api.callsOf('mergePatchPod').map(([n, p]) => [n, p])).toEqual([['sbx-1', { metadata: { annotations: { [LAST_ACTIVITY_ANNOTATION]: NOW_STAMP } } }]]);
    for (let i = 0; i < 100; i++) f.sut.touch(handleFor());
    f.clock.advance(29_999);
    f.sut.touch(handleFor());
    await flush();
    expect(f.api.callsOf('mergePatchPod')).toHaveLength(1);
    f.clock.advance(1);
    f.sut.touch(handleFor());
    await flush();
    expect(f.api.callsOf('mergePatchPod')).toHaveLength(2);
    release();
  });

  it('throttles per session: another session is stamped independently', async () => {
    f = backendFixture();
    f.api.on('mergePatchPod', async (name) => pod({ name }));
    f.sut.touch(handleFor('a'));
    f.sut.touch({ ...handleFor('b'), sessionId: 'other-session' });
    await flush();
    expect(f.api.callsOf('mergePatchPod').map(([n]) => n)).toEqual(['a', 'b']);
  });

  it('logs failures without throwing, and retries on the next command instead of waiting an interval', async () => {
    f = backendFixture();
    f.api.on('mergePatchPod', async () => {
      throw kubeErrors.internal();
    });
    f.sut.touch(handleFor());
    await flush();
    expect(f.logs.some((l) => l.level === 'warn' && l.message === 'failed to update last-activity annotation')).toBe(true);
    f.sut.touch(handleFor());
    await flush();
    expect(f.api.callsOf('mergePatchPod')).toHaveLength(2);
  });

  it('a claim stamps last-activity itself, so the first touch after it is skipped', async () => {
    f = backendFixture();
    const warm = pod({ name: 'warm-1' });
    f.api.on('listPods', async (q) => ({ items: q.labelSelector?.includes('!') ? [warm] : [] }));
    f.api.on('mergePatchPod', async () => pod({ name: 'warm-1', session: SESSION }));
    f.api.on('createSecret', async () => undefined);
    f.agent.onAssign(async () => undefined);
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    f.sut.touch(handle);
    await flush();
    expect(f.api.callsOf('mergePatchPod')).toHaveLength(1); // the claim patch only
  });
});

describe(`${KubernetesBackend.name}.release (TestCleanupSession)`, () => {
  let f: Fixture;
  afterEach(() => expect(f.api.unexpected).toEqual([]));

  it('deletes every pod of the session (instance-scoped) and its Secret by name, without waiting', async () => {
    f = backendFixture();
    const pods = [pod({ name: 'p1', session: SESSION }), pod({ name: 'p2', session: SESSION }), pod({ name: 'other-instance', session: SESSION, instance: 'aws' })];
    f.api.on('listPods', listFrom(() => pods));
    f.api.on('deletePod', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    await f.sut.end(SESSION, new AbortController().signal);
    expect(f.api.callsOf('listPods').map(([q]) => q.labelSelector)).toEqual([ASSIGNED]);
    expect(f.api.callsOf('deletePod').map(([n]) => n).sort()).toEqual(['p1', 'p2']);
    expect(f.api.callsOf('deleteSecret').map(([n]) => n)).toEqual([authSecretName('oc', SESSION)]);
    expect(f.api.callsOf('watchPodUntil')).toHaveLength(0);
  });

  it('is idempotent: NotFound on pods and Secret is success', async () => {
    f = backendFixture();
    f.api.on('listPods', listFrom(() => [pod({ name: 'gone', session: SESSION })]));
    f.api.on('deletePod', async () => {
      throw kubeErrors.notFound();
    });
    f.api.on('deleteSecret', async () => {
      throw kubeErrors.notFound('secrets "x"');
    });
    await expect(f.sut.end(SESSION, new AbortController().signal)).resolves.toBeUndefined();
    await expect(f.sut.end(SESSION, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('collects partial failures into one error (Go joined errors); a list failure deletes nothing', async () => {
    f = backendFixture();
    f.api.on('listPods', listFrom(() => [pod({ name: 'p1', session: SESSION })]));
    f.api.on('deletePod', async () => {
      throw kubeErrors.internal();
    });
    f.api.on('deleteSecret', async () => {
      throw kubeErrors.internal();
    });
    const error = await f.sut.end(SESSION, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionError);
    expect((error as Error).message).toBe(
      `delete pod p1: Internal error occurred: injected fault; delete secret ${authSecretName('oc', SESSION)}: Internal error occurred: injected fault`,
    );

    f = backendFixture();
    f.api.on('listPods', async () => {
      throw kubeErrors.refused();
    });
    await expect(f.sut.end(SESSION, new AbortController().signal)).rejects.toMatchObject({ message: expect.stringMatching(/^list pods for cleanup: /) });
  });
});

describe(`${KubernetesBackend.name}.checkHealth`, () => {
  it('lists pods in the namespace with limit=1 (never a cluster-scoped call)', async () => {
    const f = backendFixture();
    f.api.on('listPods', async () => ({ items: [] }));
    await f.sut.checkHealth(new AbortController().signal);
    expect(f.api.callsOf('listPods').map(([q]) => q)).toEqual([{ limit: 1 }]);
    f.api.on('listPods', async () => {
      throw kubeErrors.refused();
    });
    await expect(f.sut.checkHealth(new AbortController().signal)).rejects.toMatchObject({
      code: SessionErrorCode.BackendFailure,
      message: expect.stringMatching(/^kubernetes API: list pods in namespace "cli-mcp": .*ECONNREFUSED/),
    });
    expect(f.api.unexpected).toEqual([]);
  });
});

describe(`${KubernetesBackend.name}.reassign`, () => {
  let f: Fixture;
  afterEach(() => {
    expect(f.api.unexpected).toEqual([]);
    expect(f.agent.unexpected).toBe(0);
  });

  it('re-delivers the token to the pod that still carries the session label', async () => {
    f = backendFixture();
    f.api.on('getPod', async () => pod({ name: 'sbx-1', session: SESSION }));
    f.agent.onAssign(async () => undefined);
    await f.sut.reassign(handleFor(), new AbortController().signal);
    expect(f.agent.calls.map((c) => [c.baseUrl, c.token])).toEqual([['http://10.0.0.1:8090', TOKEN]]);
  });

  it('treats 409 as done when the agent holds our token (a sibling re-delivered it first)', async () => {
    f = backendFixture();
    f.api.on('getPod', async () => pod({ name: 'sbx-1', session: SESSION }));
    f.agent.onAssign(async () => {
      throw agentErrors.status(AgentErrorCode.AlreadyAssigned);
    });
    f.agent.onOutput(async () => ({ running: false }));
    await expect(f.sut.reassign(handleFor(), new AbortController().signal)).resolves.toBeUndefined();
    expect(f.agent.outputCalls.map((c) => c.token)).toEqual([TOKEN]);
  });

  it('fails when the agent holds another token, through the same delivery path as the claim', async () => {
    f = backendFixture();
    f.api.on('getPod', async () => pod({ name: 'sbx-1', session: SESSION }));
    f.agent.onAssign(async () => {
      throw agentErrors.status(AgentErrorCode.AlreadyAssigned);
    });
    f.agent.onOutput(async () => {
      throw agentErrors.unauthorized();
    });
    await expect(f.sut.reassign(handleFor(), new AbortController().signal)).rejects.toMatchObject({
      code: SessionErrorCode.SandboxUnavailable,
      message: 'reassign token: the agent of pod "sbx-1" holds another session\'s token',
    });
  });

  it('never hands the token to a pod that lost the session label or is gone', async () => {
    f = backendFixture();
    f.api.on('getPod', async () => pod({ name: 'sbx-1' }));
    await expect(f.sut.reassign(handleFor(), new AbortController().signal)).rejects.toMatchObject({ code: SessionErrorCode.SandboxUnavailable });
    f.api.on('getPod', async () => {
      throw kubeErrors.notFound();
    });
    await expect(f.sut.reassign(handleFor(), new AbortController().signal)).rejects.toMatchObject({ message: 'reassign token: pod "sbx-1" is gone' });
    expect(f.agent.calls).toHaveLength(0);
  });
});

describe(`${KubernetesBackend.name}.shutdown`, () => {
  it('stops in-flight acquisitions (pods left for siblings) and refuses new ones', async () => {
    const f = backendFixture();
    f.api.on('listPods', listFrom(() => [pod({ name: 'starting', session: SESSION, ready: false })]));
    f.api.on('watchPodUntil', hangingWatch);
    const acquiring = f.sut.acquire(SESSION, new AbortController().signal).catch((e: unknown) => e);
    await flush();
    await f.sut.shutdown();
    expect(await acquiring).toMatchObject({ code: SessionErrorCode.ShuttingDown });
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({ code: SessionErrorCode.ShuttingDown });
    expect(f.api.callsOf('deletePod')).toHaveLength(0);
    expect(f.api.unexpected).toEqual([]);
  });
});

describe('C-AUTH-2: the token never appears in errors or logs', () => {
  it('holds across failing acquisition paths', async () => {
    const f = backendFixture();
    f.api.on('listPods', async (q) => ({ items: q.labelSelector?.includes('!') ? [pod({ name: 'warm' })] : [] }));
    f.api.on('getPod', async () => pod({ name: 'warm', session: SESSION }));
    f.api.on('mergePatchPod', async () => pod({ name: 'warm', session: SESSION }));
    f.api.on('createSecret', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    f.agent.onAssign(async (_url, token) => {
      throw agentErrors.status(AgentErrorCode.Internal, `bad token ${token.slice(0, 0)}`);
    });
    f.api.on('createPod', async () => {
      throw kubeErrors.internal();
    });
    const error = await f.sut.acquire(SESSION, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionError);
    expect(JSON.stringify({ message: (error as Error).message, logs: f.logs })).not.toContain(TOKEN);
  });
});
