/**
 * `@cli-mcp/kube/client-node`: the adapters that load `@kubernetes/client-node` at import time. They live behind
 * this second entry so that a server with the local backend never loads that client — on Node 20 it costs ≈ 90 MB
 * of RSS and ≈ 0.4 s to import, the larger part of a laptop server's start (docs/server.md, "Startup");
 * `build-output.test.ts` checks that the server's static import graph never reaches it.
 */
export { ClientNodeKubeApi, type ClientNodeKubeApiOptions } from './client-node-kube-api.js';
export { loadKubeConfig } from './kube-config.js';
export { sendKubeRequest, fromApiException, abortedError, type KubeRequest, type KubeRequestOptions } from './client-node-request.js';
export { ClientNodeLeaseApi, type ClientNodeLeaseApiOptions } from './lease/client-node-lease-api.js';
export { ClientNodeEgressGateApi, type ClientNodeEgressGateApiOptions } from './egress-gate/client-node-egress-gate-api.js';
export { createEgressGate, type CreateEgressGateOptions } from './egress-gate/create-egress-gate.js';
export { ListWatchInformer, type ListWatchInformerOptions } from './list-watch-informer.js';
export { ListWatchPodInformer, type ListWatchPodInformerOptions } from './list-watch-pod-informer.js';
