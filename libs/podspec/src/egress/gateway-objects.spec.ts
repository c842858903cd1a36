import { describe, expect, it } from 'vitest';
import {
  buildEgressPodDisruptionBudget,
  buildEgressRole,
  buildEgressRoleBinding,
  buildEgressRoutesConfigMap,
  buildEgressService,
  buildEgressServiceAccount,
  egressRoutesJson,
} from './gateway-objects.js';

const SCOPE = { namespace: 'tools', instanceName: 'oc' };
const LABELS = { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'egress-gateway' };

describe('egress gateway objects', () => {
  it('Service oc-egress: proxy 3128 and admin 9090 to the gateway pods', () => {
    expect(buildEgressService(SCOPE)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'oc-egress', namespace: 'tools', labels: LABELS },
      spec: {
        type: 'ClusterIP',
        selector: LABELS,
        ports: [
          { name: 'proxy', port: 3128, targetPort: 3128, protocol: 'TCP' },
          { name: 'admin', port: 9090, targetPort: 9090, protocol: 'TCP' },
        ],
      },
    });
  });

  it('PDB keeps one gateway through a drain', () => {
    expect(buildEgressPodDisruptionBudget(SCOPE).spec).toEqual({ minAvailable: 1, selector: { matchLabels: LABELS } });
  });

  it('routes ConfigMap oc-egress-routes holds routes.json, sorted and deduplicated', () => {
    const map = buildEgressRoutesConfigMap(SCOPE, { allow: ['pypi.org:443', 'github.com:443', 'pypi.org:443'] });
    expect(map.metadata!.name).toBe('oc-egress-routes');
    expect(JSON.parse(map.data!['routes.json']!)).toEqual({ allow: ['github.com:443', 'pypi.org:443'] });
    expect(egressRoutesJson({ allow: ['b:1', 'a:1'] })).toBe(egressRoutesJson({ allow: ['a:1', 'b:1'] }));
  });

  it('RBAC: pods list/watch; its CA Secret get (create namespace-wide); its sandbox ConfigMap get/update (create namespace-wide)', () => {
    expect(buildEgressServiceAccount(SCOPE).metadata!.name).toBe('oc-egress');
    expect(buildEgressRole(SCOPE).rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['oc-egress-ca'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], resourceNames: ['oc-egress-sandbox'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
    ]);
    const binding = buildEgressRoleBinding(SCOPE);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'oc-egress' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'oc-egress', namespace: 'tools' }]);
  });
});
