import { describe, expect, it } from 'vitest';
import { DEFAULT_API_SERVER } from './egress-gateway-config.js';
import { buildEgressGatewayPolicy, buildSandboxEgressPolicy, clusterDnsRule, routeAuthorityPorts } from './egress-network-policies.js';

const SCOPE = { namespace: 'tools', instanceName: 'oc' };
const SANDBOXES = { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'sandbox' };
const GATEWAY = { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'egress-gateway' };

describe(buildSandboxEgressPolicy.name, () => {
  const toGateway = { to: [{ podSelector: { matchLabels: GATEWAY } }], ports: [{ protocol: 'TCP', port: 3128 }] };

  it('lets the instance\'s sandboxes send only to its gateway pods on 3128: no DNS by default (--sandbox-dns none)', () => {
    for (const policy of [buildSandboxEgressPolicy(SCOPE), buildSandboxEgressPolicy({ ...SCOPE, sandboxDns: 'none' })]) {
      expect(policy.metadata.name).toBe('oc-egress-sandbox');
      expect(policy.spec).toEqual({ podSelector: { matchLabels: SANDBOXES }, policyTypes: ['Egress'], egress: [toGateway] });
    }
  });

  it('adds cluster DNS with --sandbox-dns cluster, and never an ipBlock', () => {
    const policy = buildSandboxEgressPolicy({ ...SCOPE, sandboxDns: 'cluster' });
    expect(policy.spec.egress).toEqual([toGateway, clusterDnsRule()]);
    expect(JSON.stringify(policy)).not.toContain('ipBlock');
  });
});

describe(buildEgressGatewayPolicy.name, () => {
  it('admits the proxy port from this instance\'s sandboxes only, the admin port from anywhere', () => {
    const policy = buildEgressGatewayPolicy({ ...SCOPE, apiServer: DEFAULT_API_SERVER }, { allow: [] });
    expect(policy.metadata.name).toBe('oc-egress');
    expect(policy.spec.podSelector).toEqual({ matchLabels: GATEWAY });
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec.ingress).toEqual([
      { from: [{ podSelector: { matchLabels: SANDBOXES } }], ports: [{ protocol: 'TCP', port: 3128 }] },
      { ports: [{ protocol: 'TCP', port: 9090 }] },
    ]);
  });

  it('sends only to DNS, the API server, and the allow-listed routes\' ports', () => {
    const api = { cidrs: ['10.0.0.1/32'], ports: [6443] };
    const policy = buildEgressGatewayPolicy({ ...SCOPE, apiServer: api }, { allow: ['pypi.org:443', 'git.example:8443', '[2001:db8::1]:443'] });
    expect(policy.spec.egress).toEqual([
      clusterDnsRule(),
      { to: [{ ipBlock: { cidr: '10.0.0.1/32' } }], ports: [{ protocol: 'TCP', port: 6443 }] },
      { to: [{ ipBlock: { cidr: '0.0.0.0/0' } }, { ipBlock: { cidr: '::/0' } }], ports: [{ protocol: 'TCP', port: 443 }, { protocol: 'TCP', port: 8443 }] },
    ]);
    expect(buildEgressGatewayPolicy({ ...SCOPE, apiServer: api }, { allow: [] }).spec.egress).toHaveLength(2);
  });

  it('reads the port of host:port and [v6]:port authorities', () => {
    expect(routeAuthorityPorts({ allow: ['a:80', '[::1]:443', 'b:80', 'bad'] })).toEqual([80, 443]);
  });
});
