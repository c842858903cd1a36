/**
 * `@cli-mcp/session/client-node`: the parts of libs/session that load `@kubernetes/client-node` at import time. They
 * live behind this second entry so that a server with the local backend never loads that client — on Node 20 it
 * costs ≈ 90 MB of RSS and ≈ 0.4 s to import, the larger part of a laptop server's start (docs/server.md,
 * "Startup"). The main entry keeps everything that only names its types; `build-output.test.ts` checks that the
 * server's static import graph never reaches this one.
 */
export { createKubernetesBackend, type CreateKubernetesBackendOptions } from './kubernetes/create-kubernetes-backend.js';
export { ClientNodeKubeApi, type ClientNodeKubeApiOptions } from './kubernetes/client-node-kube-api.js';
export { loadKubeConfig } from './kubernetes/kube-config.js';
export { sendKubeRequest, fromApiException, abortedError, type KubeRequest, type KubeRequestOptions } from './kubernetes/client-node-request.js';
export { ClientNodeLeaseApi, type ClientNodeLeaseApiOptions } from './kubernetes/lease/client-node-lease-api.js';
