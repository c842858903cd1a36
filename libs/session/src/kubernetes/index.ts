export { KubernetesBackend } from './kubernetes-backend.js';
export {
  KUBERNETES_DEFAULTS, type KubernetesAgentPort, type KubernetesBackendLogger, type KubernetesBackendOptions,
} from './kubernetes-backend.options.js';
export type { DeletePreconditions, KubeApi, PodList, PodListQuery, PodMergePatch, PodWatchEnd } from './kube-api.port.js';
export { KubeError } from './kube-error.js';
export {
  CRASH_LOOP_RESTARTS, claimOrder, isCrashLooping, isLive, isServing, unclaimableReason, type UnclaimableReason,
} from './pod-selection.js';
export { KUBE_REQUESTS_METRIC } from './kube-request-metrics.js';
export * from './lease/index.js';
export { KubeRequestMetrics, type KubeResource, type KubeVerb } from './kube-request-metrics.js';
export { isAlreadyExists, isConflict, isNotFound, errorText } from './kube-error.js';
export {
  COMMAND_TIMEOUT_FLAGS, CommandTimeoutSettings, KUBERNETES_FLAGS, KubernetesSettings, readKubernetesSettings, type KubernetesConfig,
} from './kubernetes-settings.js';
