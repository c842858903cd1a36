import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const kubectl = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((path) => existsSync(path));
if (!kubectl) console.warn('skipping deploy manifest tests: kubectl is not installed (needed for kustomize)');

interface Manifest {
  kind: string;
  metadata: { name: string };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  spec?: Record<string, unknown>;
  automountServiceAccountToken?: boolean;
}

function render(): Manifest[] {
  const yaml = execFileSync(kubectl!, ['kustomize', 'deploy/base'], { encoding: 'utf8' });
  return parseAllDocuments(yaml).map((doc) => doc.toJS() as Manifest);
}

describe.skipIf(!kubectl)('deploy/base', () => {
  const manifests = kubectl ? render() : [];
  const byKind = (kind: string): Manifest[] => manifests.filter((m) => m.kind === kind);

  it('grants the server exactly the C-K8S-10 verbs: pods get/list/watch/create/patch/delete, secrets create/delete', () => {
    const roles = byKind('Role');
    expect(roles).toHaveLength(1);
    const rules = roles[0]!.rules!.map((r) => ({ groups: r.apiGroups, resources: [...r.resources].sort(), verbs: [...r.verbs].sort() }));
    expect(rules).toEqual([
      { groups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
      { groups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
    ]);
    expect(byKind('ClusterRole')).toHaveLength(0);
    expect(byKind('ClusterRoleBinding')).toHaveLength(0);
  });

  it('gives sandboxes a service account without a token and only server-sourced ingress on 8090', () => {
    const sandboxAccount = byKind('ServiceAccount').find((sa) => sa.metadata.name.endsWith('-sandbox'));
    expect(sandboxAccount?.automountServiceAccountToken).toBe(false);
    const policy = byKind('NetworkPolicy').find((np) => np.metadata.name.endsWith('-sandbox'))!;
    const spec = policy.spec as { policyTypes: string[]; ingress: { from: unknown[]; ports: { port: number }[] }[] };
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(spec.ingress).toHaveLength(1);
    expect(spec.ingress[0]!.ports).toEqual([{ protocol: 'TCP', port: 8090 }]);
    expect(JSON.stringify(spec.ingress[0]!.from)).toContain('"cli-mcp.redhat.com/component":"server"');
  });

  it('runs the server with an auth boundary and allowed hosts when it binds beyond loopback (C-MCP-8)', () => {
    const deployment = byKind('Deployment')[0]!;
    const args = JSON.stringify(deployment.spec);
    expect(args).toContain('--address=0.0.0.0:8080');
    expect(args).toContain('--auth-token-file=');
    expect(args).toContain('--allowed-hosts=');
    expect(args).toContain('--backend=kubernetes');
  });
});
