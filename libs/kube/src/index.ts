/**
 * `@cli-mcp/kube`: the Kubernetes API as the server and the controller use it (issue 19, item 5) — the port
 * (`KubeApi`, `LeaseApi`), the API errors, the request metrics, the leader Lease records and the Kubernetes flags
 * both apps share. Nothing here loads `@kubernetes/client-node` at import time (type imports only); the adapters
 * that do live behind `@cli-mcp/kube/client-node`, so a local-backend server never pays for that client.
 */
export type { DeletePreconditions, KubeApi, PodList, PodListQuery, PodMergePatch, PodWatchEnd } from './kube-api.port.js';
export { KubeError, isAlreadyExists, isConflict, isNotFound, isQuotaExceeded } from './kube-error.js';
export { KUBE_REQUESTS_METRIC, KubeRequestMetrics, type KubeResource, type KubeVerb } from './kube-request-metrics.js';
export * from './lease/index.js';
export { KUBERNETES_GROUP, KubeAccessSettings, KubernetesSettings, readKubernetesSettings, type KubernetesConfig } from './kubernetes-settings.js';
export { SANDBOX_GROUP, SandboxSettings } from './sandbox-settings.js';
export type { PodChange, PodInformer } from './pod-informer.port.js';
export * from './egress-gate/index.js';
export type { InformerLogger, ObjectChange, ObjectInformer } from './object-informer.port.js';
