import type { V1Container, V1EnvVar, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildSessionPod, buildWarmPod } from '../pod-builder.js';
import { EGRESS_PROXY_ADDRESS_ANNOTATION, SPEC_HASH_ANNOTATION, hasOtherProxyAddress } from '../labels.js';
import { withEgressProxyAddress } from '../sandbox-config.js';
import { sandboxSpecHash } from '../spec-hash.js';
import { checkRestrictedPodSecurity } from '../testing/restricted-pss.js';
import { INSTANCE, KUBECONFIG_SECRET, NAMESPACE, NOW, SESSION_ID, sandboxConfig } from '../testing/fixtures.js';

const egressCfg = sandboxConfig({ egressGateway: true, env: JSON.stringify([{ name: 'HTTPS_PROXY', value: 'http://evil:1' }, { name: 'KEEP', value: '1' }]) });
const sandbox = (pod: V1Pod): V1Container => pod.spec!.containers[0]!;
const env = (pod: V1Pod): Record<string, string | undefined> => Object.fromEntries((sandbox(pod).env ?? []).map((e: V1EnvVar) => [e.name, e.value]));

describe('sandbox pod with --egress-gateway', () => {
  const pod = buildSessionPod(egressCfg, INSTANCE, SESSION_ID, NOW);

  it('mounts no kubeconfig Secret: $KUBECONFIG is the dummy from the gateway\'s sandbox ConfigMap', () => {
    expect(JSON.stringify(pod.spec!.volumes)).not.toContain(KUBECONFIG_SECRET);
    expect(pod.spec!.volumes!.find((v) => v.name === 'kubeconfig')).toEqual({
      name: 'kubeconfig',
      configMap: { name: `${INSTANCE}-egress-sandbox`, items: [{ key: 'kubeconfig', path: 'kubeconfig' }] },
    });
    expect(env(pod)['KUBECONFIG']).toBe('/config/kubeconfig');
    expect(sandbox(pod).volumeMounts).toContainEqual({ name: 'kubeconfig', mountPath: '/config', readOnly: true });
  });

  it('sets the proxy (loopback-only NO_PROXY) and CA variables, which the overlay cannot replace', () => {
    const proxy = `http://${INSTANCE}-egress.${NAMESPACE}.svc:3128`;
    expect(env(pod)).toMatchObject({
      HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy,
      NO_PROXY: 'localhost,127.0.0.1,::1', no_proxy: 'localhost,127.0.0.1,::1',
      SSL_CERT_FILE: '/run/cli-mcp-egress/ca-bundle.pem', REQUESTS_CA_BUNDLE: '/run/cli-mcp-egress/ca-bundle.pem',
      CURL_CA_BUNDLE: '/run/cli-mcp-egress/ca-bundle.pem', GIT_SSL_CAINFO: '/run/cli-mcp-egress/ca-bundle.pem',
      NODE_EXTRA_CA_CERTS: '/etc/cli-mcp-egress/ca.crt', KEEP: '1',
    });
    expect((sandbox(pod).env ?? []).filter((e) => e.name === 'HTTPS_PROXY')).toHaveLength(1);
  });

  it('builds the full CA bundle (system roots + gateway CA) in an init container, into a memory emptyDir', () => {
    const init = pod.spec!.initContainers![0]!;
    expect(init.name).toBe('egress-ca-bundle');
    expect(init.image).toBe(egressCfg.image);
    expect(init.command![2]).toContain('/etc/ssl/certs/ca-certificates.crt');
    expect(init.command![2]).toContain('cat /etc/cli-mcp-egress/ca.crt >> "$out"');
    expect(init.resources).toEqual(sandbox(pod).resources);
    expect(pod.spec!.volumes).toContainEqual({ name: 'egress-ca-bundle', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } });
    expect(sandbox(pod).volumeMounts).toContainEqual({ name: 'egress-ca-bundle', mountPath: '/run/cli-mcp-egress', readOnly: true });
  });

  it('keeps no service-account token and no service links, and passes the restricted Pod Security Standard', () => {
    expect(pod.spec!.automountServiceAccountToken).toBe(false);
    expect(pod.spec!.enableServiceLinks).toBe(false);
    expect(checkRestrictedPodSecurity(pod)).toEqual([]);
  });

  it('has its own spec hash, so the pool is rebuilt when egress is switched on or off', () => {
    const plain = sandboxConfig();
    expect(sandboxSpecHash(egressCfg)).not.toBe(sandboxSpecHash(plain));
    expect(buildWarmPod(plain, 'w', NOW).spec!.initContainers).toBeUndefined();
    expect(sandboxConfig({ egressGateway: false })).toEqual(plain);
  });
});

describe('sandbox pod without DNS (--egress-gateway, --sandbox-dns none: the default)', () => {
  const noDns = sandboxConfig({ egressGateway: true });
  const address = '10.96.0.12';
  const pod = buildSessionPod(withEgressProxyAddress(noDns, address), INSTANCE, SESSION_ID, NOW);

  it('is the default with the gateway; cluster keeps DNS; without the gateway there is no DNS setting at all', () => {
    expect(noDns.sandboxDns).toBe('none');
    expect(sandboxConfig({ egressGateway: true, sandboxDns: 'cluster' }).sandboxDns).toBe('cluster');
    expect(sandboxConfig().sandboxDns).toBeUndefined();
  });

  it('gets no resolver but loopback, and the proxy\'s name from hostAliases with the gate\'s address', () => {
    expect(pod.spec!.dnsPolicy).toBe('None');
    expect(pod.spec!.dnsConfig).toEqual({ nameservers: ['127.0.0.1'] });
    expect(pod.spec!.hostAliases).toEqual([{ ip: address, hostnames: [`${INSTANCE}-egress.${NAMESPACE}.svc`] }]);
    // The name the proxy variables use is exactly the aliased one.
    expect(env(pod)['HTTPS_PROXY']).toBe(`http://${pod.spec!.hostAliases![0]!.hostnames![0]}:3128`);
    expect(pod.metadata!.annotations![EGRESS_PROXY_ADDRESS_ANNOTATION]).toBe(address);
    expect(checkRestrictedPodSecurity(pod)).toEqual([]);
  });

  it('keeps one spec hash whatever the address (a run-time fact), distinct from cluster DNS\'s', () => {
    const other = buildWarmPod(withEgressProxyAddress(noDns, '10.96.7.7'), 'w', NOW);
    expect(other.metadata!.annotations![SPEC_HASH_ANNOTATION]).toBe(pod.metadata!.annotations![SPEC_HASH_ANNOTATION]);
    expect(sandboxSpecHash(noDns)).toBe(pod.metadata!.annotations![SPEC_HASH_ANNOTATION]);
    expect(sandboxSpecHash(sandboxConfig({ egressGateway: true, sandboxDns: 'cluster' }))).not.toBe(sandboxSpecHash(noDns));
    expect(hasOtherProxyAddress(other, address)).toBe(true);
    expect(hasOtherProxyAddress(pod, address)).toBe(false);
    expect(hasOtherProxyAddress(other, undefined)).toBe(false);
  });

  it('without an address (never, once the gate is open) has no alias: the proxy is unreachable, not bypassed', () => {
    const bare = buildWarmPod(noDns, 'w', NOW);
    expect(bare.spec!.dnsPolicy).toBe('None');
    expect(bare.spec!.hostAliases).toBeUndefined();
    expect(bare.metadata!.annotations![EGRESS_PROXY_ADDRESS_ANNOTATION]).toBeUndefined();
  });

  it('with cluster DNS, or without the gateway, leaves the pod\'s DNS alone and ignores an address', () => {
    for (const cfg of [sandboxConfig({ egressGateway: true, sandboxDns: 'cluster' }), sandboxConfig()]) {
      const built = buildWarmPod(withEgressProxyAddress(cfg, address), 'w', NOW);
      expect(built.spec!.dnsPolicy).toBeUndefined();
      expect(built.spec!.dnsConfig).toBeUndefined();
      expect(built.spec!.hostAliases).toBeUndefined();
    }
  });
});
