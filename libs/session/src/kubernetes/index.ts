export { KubernetesBackend } from './kubernetes-backend.js';
export {
  KUBERNETES_DEFAULTS, type KubernetesAgentPort, type KubernetesBackendLogger, type KubernetesBackendOptions,
} from './kubernetes-backend.options.js';
