import { KubeConfig } from '@kubernetes/client-node';

/**
 * The server's own client configuration (C-K8S-9 `--kubeconfig`): an explicit file when given, else
 * client-node's default chain — `KUBECONFIG`, `~/.kube/config`, then the in-cluster service account when its
 * token is mounted (stack-notes C). A plain-`http://` test server needs `insecure-skip-tls-verify` in the file.
 */
export function loadKubeConfig(kubeconfigPath?: string): KubeConfig {
  const config = new KubeConfig();
  if (kubeconfigPath !== undefined && kubeconfigPath !== '') config.loadFromFile(kubeconfigPath);
  else config.loadFromDefault();
  if (!config.getCurrentCluster()) {
    throw new Error(kubeconfigPath ? `kubeconfig ${kubeconfigPath} has no current cluster` : 'no Kubernetes configuration found (in-cluster or KUBECONFIG)');
  }
  return config;
}
