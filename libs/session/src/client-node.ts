/**
 * `@cli-mcp/session/client-node`: the Kubernetes backend's factory, which loads `@kubernetes/client-node` (through
 * `@cli-mcp/kube/client-node`) at import time. It lives behind this second entry so that a server with the local
 * backend never loads that client (docs/server.md, "Startup"); `build-output.test.ts` checks that the server's
 * static import graph never reaches it.
 */
export { createKubernetesBackend, type CreateKubernetesBackendOptions } from './kubernetes/create-kubernetes-backend.js';
