/** The fail-closed egress gate on the acquisition path (C-EGR-6): asked before claim and create, never for a session's own pod. */
import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { EgressGateVerdict } from '@cli-mcp/kube';
import { KubeError } from '@cli-mcp/kube';
import { EGRESS_PROXY_ADDRESS_ANNOTATION, type SandboxPodConfig } from '@cli-mcp/podspec';
import { SessionErrorCode } from '../session-error.js';
import { KubernetesBackend } from './kubernetes-backend.js';
import { SESSION, backendFixture, lists, type Fixture } from './testing/backend-fixture.js';
import { pod } from './testing/strict-kube-api.js';

describe(`${KubernetesBackend.name} egress gate`, () => {
  let f: Fixture;
  let checks = 0;
  afterEach(() => {
    expect(f.api.unexpected).toEqual([]);
  });

  function withGate(verdict: EgressGateVerdict, podConfig?: Partial<SandboxPodConfig>): void {
    checks = 0;
    f = backendFixture({
      podConfig,
      egressGate: {
        check: async () => {
          checks++;
          return verdict;
        },
      },
    });
  }

  it('a closed gate refuses a new session, naming what is missing, before any claim or create', async () => {
    withGate({ open: false, reasons: ['Service oc-egress has no ready endpoints', 'NetworkPolicy oc-egress-sandbox is missing'] });
    f.api.on('listPods', lists({ assigned: [] }));
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({
      code: SessionErrorCode.EgressNotEnforced,
      message: 'resolve pod: egress gateway not enforced: Service oc-egress has no ready endpoints; NetworkPolicy oc-egress-sandbox is missing',
    });
    expect(checks).toBe(1);
    // The strict API saw only the session's own list: no unassigned list, no Secret, no pod.
    expect(f.api.calls.map((c) => c.method)).toEqual(['listPods']);
  });

  it('an open gate lets the acquisition claim and create', async () => {
    withGate({ open: true });
    f.api.on('listPods', lists({ assigned: [], unassigned: [] }));
    f.api.on('createSecret', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    f.api.on('createPod', async () => {
      throw new KubeError('injected', 500, 'InternalError');
    });
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({ code: SessionErrorCode.BackendFailure });
    expect(checks).toBe(1);
    expect(f.api.calls.map((c) => c.method)).toContain('createPod');
  });

  it('without DNS, skips a pool pod built for another gateway address and creates one with the gate\'s (hostAliases)', async () => {
    withGate({ open: true, proxyAddress: '10.96.0.12' }, { egressGateway: true, sandboxDns: 'none' });
    const stale: V1Pod = pod({ name: 'warm-old', ip: '10.0.0.5' });
    stale.metadata!.annotations = { [EGRESS_PROXY_ADDRESS_ANNOTATION]: '10.96.0.9' };
    f.api.on('listPods', lists({ assigned: [], unassigned: [stale] }));
    f.api.on('createSecret', async () => undefined);
    f.api.on('deleteSecret', async () => undefined);
    let created: V1Pod | undefined;
    f.api.on('createPod', async (body: V1Pod) => {
      created = body;
      throw new KubeError('injected', 500, 'InternalError');
    });
    await expect(f.sut.acquire(SESSION, new AbortController().signal)).rejects.toMatchObject({ code: SessionErrorCode.BackendFailure });
    // No claim attempt on the stale pod (a claim is a patch), and the created pod reaches the gateway at the new address.
    expect(f.api.calls.map((c) => c.method)).not.toContain('patchPod');
    expect(created?.spec?.hostAliases).toEqual([{ ip: '10.96.0.12', hostnames: [`${f.cfg.instanceName}-egress.${f.cfg.namespace}.svc`] }]);
    expect(created?.metadata?.annotations?.[EGRESS_PROXY_ADDRESS_ANNOTATION]).toBe('10.96.0.12');
  });

  it('a session whose pod exists is served without asking the gate', async () => {
    withGate({ open: false, reasons: ['x'] });
    const own: V1Pod = pod({ name: 'p', session: SESSION, ip: '10.0.0.9' });
    f.api.on('listPods', lists({ assigned: [own] }));
    const handle = await f.sut.acquire(SESSION, new AbortController().signal);
    expect(handle).toBeDefined();
    expect(checks).toBe(0);
  });
});
