/**
 * The Kubernetes client, for `--backend kubernetes` only: imported dynamically (by this relative path, which the
 * build leaves as it is — it rewrites the `@cli-mcp/*` aliases of static imports only), so a server with the local
 * backend never loads `@kubernetes/client-node` (≈ 90 MB RSS, ≈ 0.4 s; libs/kube/src/client-node.ts).
 */
export { ClientNodeLeaseApi, loadKubeConfig } from '@cli-mcp/kube/client-node';
export { createKubernetesBackend } from '@cli-mcp/session/client-node';
