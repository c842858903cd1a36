import type { V1Container, V1EnvVar, V1PodSpec, V1SecurityContext, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import {
  EGRESS_SANDBOX_CA_KEY,
  EGRESS_SANDBOX_KUBECONFIG_KEY,
  SANDBOX_CA_BUNDLE_DIR,
  SANDBOX_CA_BUNDLE_FILE,
  SANDBOX_EGRESS_CA_DIR,
  SANDBOX_EGRESS_CA_FILE,
  egressNames,
  egressProxyHost,
  egressProxyUrl,
} from './egress-names.js';

/**
 * What a sandbox pod gets instead of the real kubeconfig when the instance runs its egress gateway (issue 20
 * item 3, C-EGR-1, C-EGR-5). The sandbox ConfigMap `<i>-egress-sandbox` (published by the gateway) provides the
 * dummy kubeconfig — real server URLs, the gateway CA, a placeholder token — at the same `$KUBECONFIG` path as
 * before, and the gateway CA. Every TLS connection out is terminated by the gateway, so the CA variables must name
 * its CA. Those that *replace* a tool's roots (`SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`, `CURL_CA_BUNDLE`,
 * `GIT_SSL_CAINFO`) get the image's system roots plus the gateway CA, as the local backend's `ca-bundle.pem`
 * (libs/session local/egress/sandbox-egress-env.ts), so a tool that checks something offline keeps working; the
 * bundle is concatenated by an init container into a memory emptyDir, since the image's roots are only known
 * inside the image. `NODE_EXTRA_CA_CERTS` adds to Node's own roots and gets the CA alone.
 */

/**
 * The system CA bundles a sandbox image (or a laptop) may carry, in the order Go's crypto/x509 tries them: the init
 * container here and the local backend (libs/session local/egress) both take the first that exists.
 */
export const SYSTEM_CA_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
] as const;

/** The init container that writes the CA bundle. */
export const EGRESS_CA_INIT_CONTAINER = 'egress-ca-bundle';
/** Loopback only: nothing but a command's own local servers bypasses the gateway. */
export const EGRESS_NO_PROXY = 'localhost,127.0.0.1,::1';

/** The names the egress env sets; an overlay entry with one of them is dropped (the gateway's value must win). */
export const EGRESS_ENV_NAMES: ReadonlySet<string> = new Set([
  'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy',
  'SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO', 'NODE_EXTRA_CA_CERTS',
]);

export function egressSandboxEnv(instance: string, namespace: string): V1EnvVar[] {
  const proxy = egressProxyUrl(instance, namespace);
  const values: Array<[string, string]> = [
    ['HTTP_PROXY', proxy], ['HTTPS_PROXY', proxy], ['http_proxy', proxy], ['https_proxy', proxy],
    ['NO_PROXY', EGRESS_NO_PROXY], ['no_proxy', EGRESS_NO_PROXY],
    ['SSL_CERT_FILE', SANDBOX_CA_BUNDLE_FILE], ['REQUESTS_CA_BUNDLE', SANDBOX_CA_BUNDLE_FILE],
    ['CURL_CA_BUNDLE', SANDBOX_CA_BUNDLE_FILE], ['GIT_SSL_CAINFO', SANDBOX_CA_BUNDLE_FILE],
    ['NODE_EXTRA_CA_CERTS', SANDBOX_EGRESS_CA_FILE],
  ];
  return values.map(([name, value]) => ({ name, value }));
}

/** Volumes: the dummy kubeconfig and the CA (both from the sandbox ConfigMap, one key each) and the bundle's emptyDir. */
export function egressSandboxVolumes(instance: string): V1Volume[] {
  const configMap = egressNames(instance).sandboxConfigMap;
  return [
    { name: 'kubeconfig', configMap: { name: configMap, items: [{ key: EGRESS_SANDBOX_KUBECONFIG_KEY, path: 'kubeconfig' }] } },
    { name: 'egress-ca', configMap: { name: configMap, items: [{ key: EGRESS_SANDBOX_CA_KEY, path: EGRESS_SANDBOX_CA_KEY }] } },
    { name: 'egress-ca-bundle', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
  ];
}

/** The sandbox container's mounts of those (the kubeconfig's mount is the pod spec's own, at `$KUBECONFIG`'s dir). */
export function egressSandboxMounts(): V1VolumeMount[] {
  return [
    { name: 'egress-ca', mountPath: SANDBOX_EGRESS_CA_DIR, readOnly: true },
    { name: 'egress-ca-bundle', mountPath: SANDBOX_CA_BUNDLE_DIR, readOnly: true },
  ];
}

/**
 * The init container: the sandbox image (its roots are the ones to keep) with the sandbox's resources (an init
 * container's requests count as max(init, containers), so it adds nothing to the quota) and hardening.
 */
export function egressCaInitContainer(image: string, base: Pick<V1Container, 'resources' | 'imagePullPolicy'>, securityContext: V1SecurityContext): V1Container {
  const script = [
    'set -e',
    `out=${SANDBOX_CA_BUNDLE_FILE}`,
    ': > "$out"',
    `for f in ${SYSTEM_CA_BUNDLES.join(' ')}; do if [ -r "$f" ]; then cat "$f" >> "$out"; echo >> "$out"; break; fi; done`,
    `cat ${SANDBOX_EGRESS_CA_FILE} >> "$out"`,
  ].join('\n');
  const container: V1Container = {
    name: EGRESS_CA_INIT_CONTAINER,
    image,
    command: ['sh', '-c', script],
    securityContext,
    volumeMounts: [
      { name: 'egress-ca', mountPath: SANDBOX_EGRESS_CA_DIR, readOnly: true },
      { name: 'egress-ca-bundle', mountPath: SANDBOX_CA_BUNDLE_DIR },
    ],
  };
  if (base.resources !== undefined) container.resources = structuredClone(base.resources);
  if (base.imagePullPolicy !== undefined) container.imagePullPolicy = base.imagePullPolicy;
  return container;
}

/** The one nameserver of a pod without DNS: loopback, where nothing answers, so a lookup fails at once (no timeout). */
export const NO_DNS_NAMESERVER = '127.0.0.1';

/**
 * With `--sandbox-dns none` (C-EGR-1): the pod's resolver configuration and the one name it can still resolve.
 * `dnsPolicy: None` makes the kubelet write resolv.conf from `dnsConfig` alone, whose only nameserver is loopback;
 * the sandbox NetworkPolicy has no DNS rule either, so a command can neither resolve names nor carry data out in
 * queries. The proxy's name in `HTTP(S)_PROXY` and the dummy kubeconfig's `proxy-url` stays the Service's
 * (`egressProxyHost`), answered by `/etc/hosts` from `hostAliases` with the ClusterIP the gate read — clients behind
 * a proxy resolve nothing else: they send the target's name in the CONNECT and the gateway resolves it. Without the
 * address (never, once the gate is open) the entry is left out and the proxy is unreachable: closed, not open.
 */
export function noDnsPodFields(instance: string, namespace: string, address: string | undefined): Pick<V1PodSpec, 'dnsPolicy' | 'dnsConfig' | 'hostAliases'> {
  return {
    dnsPolicy: 'None',
    dnsConfig: { nameservers: [NO_DNS_NAMESERVER] },
    ...(address === undefined ? {} : { hostAliases: [{ ip: address, hostnames: [egressProxyHost(instance, namespace)] }] }),
  };
}
