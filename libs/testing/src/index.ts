/**
 * Test support for the Kubernetes backend: a faithful fake API server, a kubelet simulator running real
 * sandbox agents, fault injection and a request log. See docs/fake-kube.md.
 */
export { startFakeCluster, podIsReady, untilStore, type FakeCluster, type FakeClusterOptions } from './fake-kube/fake-cluster.js';
export {
  FakeKubeServer,
  type FakeKubeServerOptions,
  type FakeKubeServerHandle,
  type StartOptions,
  type WatchFilter,
  type KubeconfigOverrides,
} from './fake-kube/fake-kube-server.js';
export { KubeletSimulator, type KubeletOptions } from './fake-kube/kubelet/kubelet-simulator.js';
export type { AgentCommand, ProcessExit } from './fake-kube/kubelet/agent-process.js';
export {
  AGENT_ENTRY,
  builtAgentCommand,
  builtAgentExists,
  repoRoot,
  standInAgentCommand,
} from './fake-kube/kubelet/agent-locator.js';
export { FaultInjector, statusForCode, type FaultRule, type FaultHandle } from './fake-kube/http/faults.js';
export { RequestLog, type RequestRecord, type RequestFilter } from './fake-kube/http/request-log.js';
export type { FakeUserSpec, UserInfo, CredentialKind } from './fake-kube/http/authn.js';
export type { KubeVerb } from './fake-kube/http/request-info.js';
export { buildKubeconfig, writeKubeconfig, type KubeconfigOptions } from './fake-kube/kubeconfig.js';
export { KubeApi, type KubeList, type DeleteOptions, type WriteOptions, type PatchKind, type ListOptions } from './fake-kube/api/kube-api.js';
export { ObjectStore, type StoreEvent } from './fake-kube/api/object-store.js';
export { PODS, SECRETS, LEASES, type ResourceDefinition, type PrinterColumn } from './fake-kube/api/resources.js';
export { builtinResources, DEPLOYMENTS, SERVICE_ACCOUNTS, CONFIG_MAPS, ROLES, ROLE_BINDINGS, NETWORK_POLICIES, ENDPOINT_SLICES, POD_DISRUPTION_BUDGETS, EVENTS } from './fake-kube/api/builtin-resources.js';
export { ResourceRegistry } from './fake-kube/api/resource-registry.js';
export { CUSTOM_RESOURCE_DEFINITIONS } from './fake-kube/api/crd/crd-definitions.js';
export { KubeApiError, Statuses } from './fake-kube/api/status.js';
export { formatMicroTime, formatTime } from './fake-kube/api/kube-time.js';
export type { KubeObject, ObjectMeta, Status, StatusDetails, StatusCause } from './fake-kube/api/types.js';
export { sendRaw, type RawRequest, type RawResponse } from './raw-http/raw-http-client.js';
export { FakeClock, type ClockLike } from './fake-clock.js';
export { mcpAnswerMessages } from './raw-http/mcp-answer.js';
export { eventually } from './eventually.js';
export { hasExited, isAlive, processRef, processRefFromStat, readProcStat, signalProcess, type ProcessRef, type ProcStat } from './process-ref.js';
export { DeploymentSimulator } from './deployment-simulator.js';
export { deferred } from './deferred.js';
