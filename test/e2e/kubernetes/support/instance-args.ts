import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRETS, startFakeCluster, type FakeCluster, type FakeClusterOptions } from '@cli-mcp/testing';

/** The kubelet of every Kubernetes e2e file: twenty times faster than real, short grace periods. */
export const E2E_KUBELET = { speedup: 20, maxTerminationGraceMs: 2_000, stopGraceMs: 1_000 } as const;

/** Secret `cli-mcp-oc-kubeconfig`, the investigation kubeconfig the instance's sandboxes (or its gateway) mount. */
export function seedInstanceKubeconfig(cluster: FakeCluster, namespace: string, kubeconfig = 'apiVersion: v1\nkind: Config\n'): void {
  cluster.api.create(SECRETS, namespace, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-oc-kubeconfig' }, stringData: { kubeconfig } });
}

/** A fake cluster for instance `oc` in `namespace`, with the e2e kubelet and the instance's kubeconfig Secret. */
export async function startInstanceCluster(namespace: string, options: Omit<FakeClusterOptions, 'namespace' | 'kubelet'> = {}): Promise<FakeCluster> {
  const cluster = await startFakeCluster({ ...options, namespace, kubelet: E2E_KUBELET });
  seedInstanceKubeconfig(cluster, namespace);
  return cluster;
}

/** An HMAC key file (`--hmac-key-file`) of 32 bytes made of `byte` (hex), in `dir`. */
export function writeHmacKeyFile(dir: string, byte = 'ab'): string {
  const keyFile = join(dir, 'hmac.key');
  writeFileSync(keyFile, `${byte.repeat(32)}\n`, { mode: 0o600 });
  return keyFile;
}

/**
 * The flags every Kubernetes e2e test gives the built server (and, without the server's own, the controller) for
 * instance `oc`: one list, so the files agree on the instance they set up in the fake cluster.
 */
export function instanceArgs(namespace: string): string[] {
  return [
    '--namespace', namespace, '--instance-name', 'oc', '--sandbox-image', 'quay.io/example/cli-mcp-sandbox:test',
    '--kubeconfig-secret', 'cli-mcp-oc-kubeconfig', '--sandbox-service-account', 'cli-mcp-oc-sandbox', '--sandbox-termination-grace-period', '1',
  ];
}

/** The built server's flags for `--backend kubernetes` against `kubeconfig`, signing with the key in `keyFile`. */
export function kubernetesServerArgs(kubeconfig: string, namespace: string, keyFile: string, ...extra: string[]): string[] {
  return ['--backend', 'kubernetes', '--kubeconfig', kubeconfig, '--hmac-key-file', keyFile, ...instanceArgs(namespace), ...extra];
}
