/** A Secret or ConfigMap as the gateway reads and writes it: string data only (base64 is the adapter's). */
export interface StoredObject {
  readonly name: string;
  /** `data` decoded (Secrets) or as is (ConfigMaps). */
  readonly data: Readonly<Record<string, string>>;
  readonly type?: string;
  readonly resourceVersion?: string;
}

/**
 * The few API calls of `cli-mcp-egress` besides its pod informer (RBAC in docs/egress.md "Kubernetes"): the CA
 * Secret (get, create) and the sandbox ConfigMap (get, create, update). Errors are `KubeError`.
 */
export interface EgressKubeApi {
  getSecret(name: string, signal: AbortSignal): Promise<StoredObject>;
  createTlsSecret(name: string, data: Readonly<Record<string, string>>, signal: AbortSignal): Promise<void>;
  getConfigMap(name: string, signal: AbortSignal): Promise<StoredObject>;
  createConfigMap(name: string, data: Readonly<Record<string, string>>, signal: AbortSignal): Promise<void>;
  /** Replaces the data; `resourceVersion` makes a concurrent writer's change a 409 Conflict. */
  updateConfigMap(name: string, data: Readonly<Record<string, string>>, resourceVersion: string | undefined, signal: AbortSignal): Promise<void>;
}
