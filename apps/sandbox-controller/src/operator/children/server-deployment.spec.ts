import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { resolveInstance, type ResolvedInstance } from '../spec/resolve-instance.js';
import type { CliMcpInstance } from '../api/climcpinstance.js';
import { accessChildren } from './access-children.js';
import { serverArgs } from './server-args.js';
import { CONFIG_HASH_ANNOTATION, serverDeployment } from './server-deployment.js';

const DEFAULTS = { namespace: 'team', serverImage: 'quay.io/x/server:1', sandboxImage: 'quay.io/x/sandbox:1', maxTimeoutSeconds: 300, defaultTimeoutSeconds: 60 };
function instance(spec: CliMcpInstance['spec'] = {}): ResolvedInstance {
  const result = resolveInstance({ metadata: { name: 'oc' }, spec }, DEFAULTS);
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.instance;
}
const OWNER = { name: 'oc', uid: 'u1' };
const SECRETS = { hmacUid: 'h1', authUid: 'a1', tls: false };
const deployment = (i: ResolvedInstance, secrets = SECRETS, replicas = 1) => serverDeployment(i, OWNER, secrets, replicas).object as unknown as V1Deployment;

describe(serverArgs.name, () => {
  it('renders the server\'s flags from the CR, never the pool or idle flags (the operator runs those)', () => {
    const args = serverArgs(instance({ sandbox: { imagePullPolicy: 'Never', idleTimeout: '5m', warmPoolSize: 3 }, server: { yieldAfter: '45s' } }), 'cli-mcp-oc-server');
    expect(args).toEqual([
      '--transport=http', '--address=0.0.0.0:8080', '--auth-token-file=/etc/cli-mcp/auth/token',
      '--allowed-hosts=cli-mcp-oc-server,cli-mcp-oc-server.team,cli-mcp-oc-server.team.svc,cli-mcp-oc-server.team.svc.cluster.local',
      '--backend=kubernetes', '--namespace=team', '--instance-name=oc', '--hmac-key-file=/etc/cli-mcp/hmac/key', '--sandbox-image=quay.io/x/sandbox:1',
      '--kubeconfig-secret=cli-mcp-oc-kubeconfig', '--sandbox-service-account=cli-mcp-oc-sandbox', '--sandbox-cpu-request=100m', '--sandbox-cpu-limit=500m',
      '--sandbox-memory-request=128Mi', '--sandbox-memory-limit=512Mi', '--max-timeout=300s', '--default-timeout=60s', '--sandbox-image-pull-policy=Never', '--yield-after=45s',
    ]);
    expect(args.join(' ')).not.toMatch(/idle-timeout|warm-pool-size/);
  });

  it('doubles every $ so the kubelet\'s $(VAR) expansion hands the server the text as written', () => {
    const args = serverArgs(instance({ sandbox: { env: [{ name: 'P', value: 'a$(HOME)b$$c' }] } }), 'svc');
    expect(args.at(-1)).toBe('--sandbox-env=[{"name":"P","value":"a$$(HOME)b$$$$c"}]');
  });
});

describe(serverDeployment.name, () => {
  it('is the hardened server pod of the kustomize path, owned by the CR, with replicas from the spec', () => {
    const d = deployment(instance({ replicas: 3 }), SECRETS, 3);
    expect(d.metadata).toMatchObject({ name: 'cli-mcp-oc-server', namespace: 'team', ownerReferences: [{ kind: 'CliMcpInstance', uid: 'u1', controller: true }] });
    expect(d.spec?.replicas).toBe(3);
    const pod = d.spec!.template.spec!;
    expect(pod).toMatchObject({ serviceAccountName: 'cli-mcp-oc-server', enableServiceLinks: false, terminationGracePeriodSeconds: 320, securityContext: { runAsNonRoot: true } });
    expect(pod.containers[0]).toMatchObject({ image: 'quay.io/x/server:1', securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } });
    expect(pod.volumes?.map((v) => v.secret?.secretName ?? v.name)).toEqual(['cli-mcp-oc-hmac', 'cli-mcp-oc-auth', 'tmp']);
  });

  it('rolls (a new config hash) when a mounted Secret is replaced or the args change, not when pool or GC settings do', () => {
    const hash = (d: V1Deployment) => d.spec!.template.metadata!.annotations![CONFIG_HASH_ANNOTATION];
    const base = hash(deployment(instance()));
    expect(hash(deployment(instance(), { hmacUid: 'h2', authUid: 'a1', tls: false }))).not.toBe(base);
    expect(hash(deployment(instance({ sandbox: { image: 'quay.io/x/sandbox:2' } })))).not.toBe(base);
    expect(hash(deployment(instance({ sandbox: { warmPoolSize: 4, idleTimeout: '1h', maxSessionAge: '8h' } })))).toBe(base);
  });
});

describe('HTTPS from cli-mcp-<name>-tls', () => {
  it('with a usable TLS Secret: the TLS flags, the Secret mounted read-only, HTTPS probes, and a roll to get there', () => {
    const plain = deployment(instance());
    const https = deployment(instance(), { ...SECRETS, tls: true });
    const container = https.spec!.template.spec!.containers[0]!;
    expect(container.args).toEqual(expect.arrayContaining(['--tls-cert-file=/etc/cli-mcp/tls/tls.crt', '--tls-key-file=/etc/cli-mcp/tls/tls.key']));
    expect(container.volumeMounts).toContainEqual({ name: 'tls', mountPath: '/etc/cli-mcp/tls', readOnly: true });
    expect(https.spec!.template.spec!.volumes).toContainEqual({ name: 'tls', secret: { secretName: 'cli-mcp-oc-tls', items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }] } });
    expect([container.startupProbe, container.readinessProbe, container.livenessProbe].map((p) => p!.httpGet!.scheme)).toEqual(['HTTPS', 'HTTPS', 'HTTPS']);
    expect(plain.spec!.template.spec!.containers[0]!.args!.join(' ')).not.toContain('tls');
    expect(plain.spec!.template.spec!.containers[0]!.readinessProbe!.httpGet!.scheme).toBe('HTTP');
    const hash = (d: V1Deployment) => d.spec!.template.metadata!.annotations![CONFIG_HASH_ANNOTATION];
    expect(hash(https)).not.toBe(hash(plain));
  });

  it('annotates the Service for OpenShift\'s service CA, which then writes that Secret', () => {
    const service = accessChildren(instance(), OWNER).find((c) => c.resource.kind === 'Service')!.object;
    expect(service.metadata?.annotations).toEqual({ 'service.beta.openshift.io/serving-cert-secret-name': 'cli-mcp-oc-tls' });
    expect(service.metadata?.labels).toMatchObject({ 'cli-mcp.redhat.com/instance': 'oc' });
  });
});

describe(accessChildren.name, () => {
  it('gives the server exactly C-K8S-10 and the sandboxes a ServiceAccount without a token or bindings', () => {
    const children = accessChildren(instance(), OWNER);
    const role = children.find((c) => c.resource.kind === 'Role')!.object as unknown as { rules: unknown };
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
    ]);
    expect(children.filter((c) => c.resource.kind === 'RoleBinding').map((c) => (c.object as unknown as { subjects: Array<{ name: string }> }).subjects[0]!.name)).toEqual(['cli-mcp-oc-server']);
    expect(children.find((c) => c.object.metadata?.name === 'cli-mcp-oc-sandbox' && c.resource.kind === 'ServiceAccount')!.object).toMatchObject({ automountServiceAccountToken: false });
    const sandboxPolicy = children.find((c) => c.resource.kind === 'NetworkPolicy' && c.object.metadata?.name === 'cli-mcp-oc-sandbox')!.object as unknown as { spec: { ingress: unknown } };
    expect(sandboxPolicy.spec.ingress).toEqual([{ from: [{ podSelector: { matchLabels: { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'server' } } }], ports: [{ protocol: 'TCP', port: 8090 }] }]);
  });
});
