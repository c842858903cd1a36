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
