import { describe, expect, it } from 'vitest';
import type { Clock } from '@cli-mcp/common';
import type { EgressGateApi, GateEndpointSlice, GateLabelSelector, GateNetworkPolicy, GateService } from './egress-gate-api.port.js';
import { EgressGate } from './egress-gate.js';
import { closedGateText, egressGateVerdict } from './egress-gate-verdict.js';
import { maySelectSandbox } from './sandbox-selection.js';
import { buildSandboxEgressPolicy } from '@cli-mcp/podspec';

const INSTANCE = 'oc';
const SANDBOXES = { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'sandbox' };
const READY: GateEndpointSlice = { endpoints: [{ addresses: ['10.0.0.7'], conditions: { ready: true } }] };
/** What the manifests apply (libs/podspec builds it). */
const SANDBOX_NP = buildSandboxEgressPolicy({ namespace: 'tools', instanceName: INSTANCE }) as unknown as GateNetworkPolicy;
/** The base's ingress policy for sandboxes: Egress with no rule grants nothing. */
const DENY_ALL: GateNetworkPolicy = { metadata: { name: 'cli-mcp-oc-sandbox' }, spec: { podSelector: { matchLabels: SANDBOXES }, policyTypes: ['Ingress', 'Egress'], egress: [] } };
const allowAll = (name: string, podSelector: GateLabelSelector): GateNetworkPolicy => ({
  metadata: { name },
  spec: { podSelector, policyTypes: ['Egress'], egress: [{}] },
});

describe(egressGateVerdict.name, () => {
  it('is open with a ready endpoint, the sandbox policy with Egress, and no other policy granting egress', () => {
    expect(egressGateVerdict(INSTANCE, [READY], [SANDBOX_NP, DENY_ALL])).toEqual({ open: true });
    // `ready` unset counts as ready (the EndpointSlice API's definition).
    expect(egressGateVerdict(INSTANCE, [{ endpoints: [{ addresses: ['10.0.0.7'] }] }], [SANDBOX_NP])).toEqual({ open: true });
  });

  it('closes when the Service has no ready endpoint', () => {
    for (const slices of [[], [{ endpoints: [] }], [{ endpoints: [{ addresses: ['10.0.0.7'], conditions: { ready: false } }] }]]) {
      expect(egressGateVerdict(INSTANCE, slices, [SANDBOX_NP])).toEqual({ open: false, reasons: ['Service oc-egress has no ready endpoints'] });
    }
  });

  it('closes when the sandbox policy is missing or does not restrict Egress', () => {
    expect(egressGateVerdict(INSTANCE, [READY], [])).toEqual({ open: false, reasons: ['NetworkPolicy oc-egress-sandbox is missing'] });
    const ingressOnly = { ...SANDBOX_NP, spec: { ...SANDBOX_NP.spec, policyTypes: ['Ingress'] } };
    expect(egressGateVerdict(INSTANCE, [READY], [ingressOnly])).toEqual({ open: false, reasons: ['NetworkPolicy oc-egress-sandbox does not restrict Egress'] });
  });

  it('closes when the sandbox policy itself is widened: no destinations, an ipBlock, other pods or ports, other namespaces beyond DNS', () => {
    const gateway = { podSelector: { matchLabels: { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'egress-gateway' } } };
    const widened: Array<[unknown[], string]> = [
      [[{}], 'has an egress rule without destinations (allows every address)'],
      [[{ to: [gateway] }], 'has an egress rule without fixed ports'],
      [[{ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ protocol: 'TCP', port: 443 }] }], 'allows egress to an ipBlock'],
      [[{ to: [{ podSelector: {} }], ports: [{ protocol: 'TCP', port: 3128 }] }], 'allows egress to pods other than the gateway\'s proxy port'],
      [[{ to: [gateway], ports: [{ protocol: 'TCP', port: 8080 }] }], 'allows egress to pods other than the gateway\'s proxy port'],
      [[{ to: [{ namespaceSelector: {} }], ports: [{ protocol: 'TCP', port: 443 }] }], 'allows egress to other namespaces beyond DNS'],
    ];
    for (const [egress, problem] of widened) {
      const policy = { ...SANDBOX_NP, spec: { ...SANDBOX_NP.spec, egress } };
      expect(egressGateVerdict(INSTANCE, [READY], [policy])).toEqual({ open: false, reasons: [`NetworkPolicy oc-egress-sandbox ${problem}`] });
    }
    // An adapted DNS rule (NodeLocal DNS in its namespace, 53 only) is fine.
    const nodeLocal = { ...SANDBOX_NP, spec: { ...SANDBOX_NP.spec, egress: [...SANDBOX_NP.spec!.egress!, { to: [{ namespaceSelector: { matchLabels: { x: 'y' } } }], ports: [{ protocol: 'UDP', port: 53 }] }] } };
    expect(egressGateVerdict(INSTANCE, [READY], [nodeLocal])).toEqual({ open: true });
  });

  it('closes when a second policy selecting the sandboxes re-opens egress: by labels, expressions, or an empty selector', () => {
    const selectors: GateLabelSelector[] = [{ matchLabels: SANDBOXES }, {}, { matchLabels: { 'cli-mcp.redhat.com/instance': 'oc' } }, { matchExpressions: [{ key: 'cli-mcp.redhat.com/component', operator: 'In', values: ['sandbox', 'x'] }] }, { matchLabels: { 'cli-mcp.redhat.com/session-id': 'one' } }];
    for (const selector of selectors) {
      const verdict = egressGateVerdict(INSTANCE, [READY], [SANDBOX_NP, allowAll('open-egress', selector)]);
      expect(verdict).toEqual({ open: false, reasons: ['NetworkPolicy open-egress also selects sandbox pods and allows egress'] });
    }
    // policyTypes unset: Egress because it has egress rules (the API default).
    expect(egressGateVerdict(INSTANCE, [READY], [SANDBOX_NP, { metadata: { name: 'untyped' }, spec: { podSelector: {}, egress: [{}] } }]).open).toBe(false);
  });

  it('stays open for policies that select other pods or grant no egress', () => {
    const others = [
      allowAll('servers', { matchLabels: { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'server' } }),
      allowAll('other-instance', { matchLabels: { 'cli-mcp.redhat.com/instance': 'other' } }),
      allowAll('not-sandbox', { matchExpressions: [{ key: 'cli-mcp.redhat.com/component', operator: 'NotIn', values: ['sandbox'] }] }),
      allowAll('needs-label', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }),
      { metadata: { name: 'ingress' }, spec: { podSelector: {}, policyTypes: ['Ingress'], egress: [{}] } },
    ];
    expect(egressGateVerdict(INSTANCE, [READY], [SANDBOX_NP, ...others])).toEqual({ open: true });
  });

  it('with --sandbox-dns cluster, accepts the sandbox policy with its cluster DNS rule', () => {
    const withDns = buildSandboxEgressPolicy({ namespace: 'tools', instanceName: INSTANCE, sandboxDns: 'cluster' }) as unknown as GateNetworkPolicy;
    expect(withDns.spec?.egress).toHaveLength(2);
    expect(SANDBOX_NP.spec?.egress).toHaveLength(1);
    expect(egressGateVerdict(INSTANCE, [READY], [withDns])).toEqual({ open: true });
  });

  it('with the Service read (--sandbox-dns none), opens carrying its ClusterIP, and closes when it is missing or headless', () => {
    const service = (clusterIP?: string): GateService => ({ spec: clusterIP === undefined ? {} : { clusterIP } });
    expect(egressGateVerdict(INSTANCE, [READY], [SANDBOX_NP], service('10.96.0.12'))).toEqual({ open: true, proxyAddress: '10.96.0.12' });
    expect(egressGateVerdict(INSTANCE, [READY], [SANDBOX_NP], 'missing')).toEqual({ open: false, reasons: ['Service oc-egress is missing'] });
    for (const headless of [service('None'), service(''), service()]) {
      expect(egressGateVerdict(INSTANCE, [READY], [SANDBOX_NP], headless)).toEqual({
        open: false, reasons: ['Service oc-egress has no ClusterIP (sandboxes without DNS reach the gateway by it)'],
      });
    }
    // An address alone never opens the gate: the other conditions still hold it shut.
    expect(egressGateVerdict(INSTANCE, [], [SANDBOX_NP], service('10.96.0.12'))).toEqual({ open: false, reasons: ['Service oc-egress has no ready endpoints'] });
  });

  it('names every missing condition in one text', () => {
    const verdict = egressGateVerdict(INSTANCE, [], [allowAll('wide', {})]);
    expect(verdict.open).toBe(false);
    if (!verdict.open) {
      expect(closedGateText(verdict)).toBe(
        'egress gateway not enforced: Service oc-egress has no ready endpoints; NetworkPolicy oc-egress-sandbox is missing; NetworkPolicy wide also selects sandbox pods and allows egress',
      );
    }
  });
});

describe(maySelectSandbox.name, () => {
  it('treats the session label as any value or absent', () => {
    expect(maySelectSandbox({ matchExpressions: [{ key: 'cli-mcp.redhat.com/session-id', operator: 'DoesNotExist' }] }, SANDBOXES)).toBe(true);
    expect(maySelectSandbox({ matchExpressions: [{ key: 'cli-mcp.redhat.com/session-id', operator: 'Exists' }] }, SANDBOXES)).toBe(true);
  });
});

class ManualClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
  schedule(): () => void {
    return () => undefined;
  }
}

/** A strict fake of the two reads, counting them; `hold` keeps a read pending until released. */
function fakeApi(state: { slices: GateEndpointSlice[]; policies: GateNetworkPolicy[]; service?: GateService; fail?: Error }) {
  const calls = { slices: 0, policies: 0, services: 0 };
  let release: (() => void) | undefined;
  const api: EgressGateApi & { hold(): void; release(): void } = {
    async listEndpointSlices(selector) {
      expect(selector).toBe('kubernetes.io/service-name=oc-egress');
      calls.slices++;
      if (release !== undefined) await new Promise<void>((resolve) => (release = resolve));
      if (state.fail) throw state.fail;
      return state.slices;
    },
    async listNetworkPolicies() {
      calls.policies++;
      return state.policies;
    },
    async readService(name) {
      expect(name).toBe('oc-egress');
      calls.services++;
      return state.service;
    },
    hold() {
      release = () => undefined;
    },
    release() {
      const r = release;
      release = undefined;
      r?.();
    },
  };
  return { api, calls };
}

describe(EgressGate.name, () => {
  const signal = new AbortController().signal;

  it('reuses a verdict for less than 5 s, then reads again (a change shows within 5 s)', async () => {
    const state = { slices: [READY], policies: [SANDBOX_NP] };
    const { api, calls } = fakeApi(state);
    const clock = new ManualClock();
    const gate = new EgressGate({ api, instance: INSTANCE, clock, ttlMs: 60_000 });
    expect(await gate.check(signal)).toEqual({ open: true });
    state.slices = [];
    clock.t = 4_999;
    expect(await gate.check(signal)).toEqual({ open: true });
    expect(calls).toEqual({ slices: 1, policies: 1, services: 0 });
    clock.t = 5_000;
    expect((await gate.check(signal)).open).toBe(false);
    expect(calls).toEqual({ slices: 2, policies: 2, services: 0 });
    expect(gate.lastVerdict).toEqual({ open: false, reasons: ['Service oc-egress has no ready endpoints'] });
  });

  it('with readProxyAddress, also reads the Service: its ClusterIP in the open verdict, shut while it is missing', async () => {
    const state: { slices: GateEndpointSlice[]; policies: GateNetworkPolicy[]; service?: GateService } = { slices: [READY], policies: [SANDBOX_NP], service: { spec: { clusterIP: '10.96.0.12' } } };
    const { api, calls } = fakeApi(state);
    const clock = new ManualClock();
    const gate = new EgressGate({ api, instance: INSTANCE, clock, readProxyAddress: true });
    expect(await gate.check(signal)).toEqual({ open: true, proxyAddress: '10.96.0.12' });
    delete state.service;
    clock.t = 5_000;
    expect(await gate.check(signal)).toEqual({ open: false, reasons: ['Service oc-egress is missing'] });
    expect(calls).toEqual({ slices: 2, policies: 2, services: 2 });
  });

  it('shares one check between concurrent callers', async () => {
    const { api, calls } = fakeApi({ slices: [READY], policies: [SANDBOX_NP] });
    const gate = new EgressGate({ api, instance: INSTANCE, clock: new ManualClock() });
    api.hold();
    const verdicts = Promise.all(Array.from({ length: 5 }, () => gate.check(signal)));
    await Promise.resolve();
    api.release();
    expect(await verdicts).toEqual(Array(5).fill({ open: true }));
    expect(calls.slices).toBe(1);
  });

  it('fails closed when the API cannot be read, naming the error', async () => {
    const { api } = fakeApi({ slices: [], policies: [], fail: new Error('networkpolicies is forbidden') });
    const verdict = await new EgressGate({ api, instance: INSTANCE, clock: new ManualClock() }).check(signal);
    expect(verdict).toEqual({ open: false, reasons: ["the gate's conditions could not be read: networkpolicies is forbidden"] });
  });
});
