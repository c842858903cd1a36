import type { Agent } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * The server's own client configuration (C-K8S-9 `--kubeconfig`): an explicit file when given, else
 * client-node's default chain — `KUBECONFIG`, `~/.kube/config`, then the in-cluster service account when its
 * token is mounted (stack-notes C). A plain-`http://` test server needs `insecure-skip-tls-verify` in the file.
 * Its HTTP agents are reused (see {@link reuseAgents}).
 */
export function loadKubeConfig(kubeconfigPath?: string): KubeConfig {
  const config = new KubeConfig();
  if (kubeconfigPath !== undefined && kubeconfigPath !== '') config.loadFromFile(kubeconfigPath);
  else config.loadFromDefault();
  if (!config.getCurrentCluster()) {
    throw new Error(kubeconfigPath ? `kubeconfig ${kubeconfigPath} has no current cluster` : 'no Kubernetes configuration found (in-cluster or KUBECONFIG)');
  }
  return reuseAgents(config);
}

/** Agents kept per distinct set of TLS options (a rotated client certificate makes a new one). */
const MAX_AGENTS = 4;

type CreateAgent = (cluster: unknown, options: Record<string, unknown>) => Agent;

/**
 * client-node 1.4 builds a new `https.Agent` for every request (`KubeConfig.createAgent`, called from
 * `applyToFetchOptions` and `applySecurityAuthentication`): no connection is ever reused, so each request pays a
 * TCP and TLS handshake and a fresh parse of the CA into an OpenSSL store, and the operator's resident memory grew by
 * ~40 MB over 20 instances from that churn alone (docs/benchmarks.md "Operator"). This keeps one keep-alive agent
 * per cluster and TLS options, and hands it to every request. The method is private in client-node's types, so
 * it is replaced on the instance.
 */
export function reuseAgents(config: KubeConfig): KubeConfig {
  const target = config as unknown as { createAgent: CreateAgent };
  const create = target.createAgent.bind(config);
  const agents = new Map<string, Agent>();
  target.createAgent = (cluster, options) => {
    const key = JSON.stringify({ server: (cluster as { server?: string } | undefined)?.server, ...options }, (_key, value: unknown) =>
      Buffer.isBuffer(value) ? value.toString('base64') : value,
    );
    let agent = agents.get(key);
    if (!agent) {
      agent = create(cluster, { ...options, keepAlive: true });
      agents.set(key, agent);
      if (agents.size > MAX_AGENTS) {
        const [oldest, stale] = agents.entries().next().value as [string, Agent];
        agents.delete(oldest);
        stale.destroy();
      }
    }
    return agent;
  };
  return config;
}
