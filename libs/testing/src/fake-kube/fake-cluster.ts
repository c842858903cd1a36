import type { KubeApi } from './api/kube-api.js';
import type { ObjectStore } from './api/object-store.js';
import type { ResourceRegistry } from './api/resource-registry.js';
import type { KubeObject } from './api/types.js';
import { FakeKubeServer, type FakeKubeServerOptions } from './fake-kube-server.js';
import type { FaultInjector } from './http/faults.js';
import type { RequestLog } from './http/request-log.js';
import { KubeletSimulator, type KubeletOptions } from './kubelet/kubelet-simulator.js';

/** Options of `startFakeCluster`. */
export interface FakeClusterOptions extends FakeKubeServerOptions {
  /** Kubelet simulator options, or `false` for an API server without a node (pods stay unscheduled). */
  kubelet?: KubeletOptions | false;
  /** Where to write the kubeconfig: `true` (default) → a temp dir; a string → that path. */
  kubeconfig?: true | string;
  /** Default namespace of the kubeconfig context. Default `default`. */
  namespace?: string;
}

/** A running fake cluster: API server + (optionally) the kubelet simulator. */
export interface FakeCluster {
  /** `http://127.0.0.1:PORT` (`https://` with TLS). */
  url: string;
  port: number;
  /** Absolute path of a kubeconfig pointing at the server (its CA, and the `token` or first `users` token). */
  kubeconfigPath: string;
  /** The serving CA (PEM) the kubeconfig carries; undefined without TLS. */
  caPem?: string;
  server: FakeKubeServer;
  kubelet?: KubeletSimulator;
  api: KubeApi;
  store: ObjectStore;
  faults: FaultInjector;
  requests: RequestLog;
  /** Served resources (built-in kinds and those of CRDs): `registry.find(group, version, plural)`. */
  registry: ResourceRegistry;
  /**
   * Resolves with the object (or undefined once it is gone) as soon as `predicate` holds; event-driven, no
   * polling. Rejects after `timeoutMs` (default 15 000) with the last state seen.
   */
  waitFor(
    /** A storage key: `pods`, `secrets`, `leases`, … or a CRD name (`widgets.example.com`) for its resources. */
    resource: string,
    /** undefined for a cluster-scoped resource. */
    namespace: string | undefined,
    name: string,
    predicate: (object: KubeObject | undefined) => boolean,
    timeoutMs?: number,
  ): Promise<KubeObject | undefined>;
  /** Stops the kubelet (killing every agent) and the API server. */
  stop(): Promise<void>;
}

/**
 * Resolves once `check` holds, re-checked on every change in `store` (no polling); `what` (or its value at the
 * deadline) names the condition in the timeout error. The one such wait of the cluster-level test stacks.
 */
export function untilStore(store: ObjectStore, check: () => boolean, what: string | (() => string), timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      if (!check()) return;
      off();
      clearTimeout(timer);
      resolve();
    };
    const off = store.subscribe(done);
    const timer = setTimeout(() => (off(), reject(new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`))), timeoutMs);
    done();
  });
}

function waitForObject(
  store: ObjectStore,
  resource: string,
  namespace: string | undefined,
  name: string,
  predicate: (object: KubeObject | undefined) => boolean,
  timeoutMs: number,
): Promise<KubeObject | undefined> {
  return new Promise((resolveWait, reject) => {
    const check = (): boolean => {
      const current = store.get(resource, namespace, name);
      if (!predicate(current)) return false;
      cleanup();
      resolveWait(current);
      return true;
    };
    const unsubscribe = store.subscribe((event) => {
      if (event.resource === resource && event.object.metadata.namespace === namespace && event.object.metadata.name === name) check();
    });
    const timer = setTimeout(() => {
      cleanup();
      const last = store.get(resource, namespace, name);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${resource} ${namespace}/${name}; last state: ${JSON.stringify(last?.['status'] ?? last ?? null)}`));
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      unsubscribe();
    };
    check();
  });
}

/**
 * Starts the fake API server (random port on 127.0.0.1 by default), writes a kubeconfig and starts the kubelet
 * simulator (real sandbox agents). Call `stop()` in `afterAll`/`afterEach`.
 */
export async function startFakeCluster(options: FakeClusterOptions = {}): Promise<FakeCluster> {
  const server = new FakeKubeServer(options);
  const handle = await server.start({ kubeconfig: options.kubeconfig ?? true, namespace: options.namespace ?? 'default' });
  const kubelet = options.kubelet === false ? undefined : new KubeletSimulator(server.api, server.store, options.kubelet ?? {});
  kubelet?.start();
  return {
    url: handle.url,
    port: handle.port,
    kubeconfigPath: handle.kubeconfigPath as string,
    caPem: server.caPem,
    server,
    kubelet,
    api: server.api,
    store: server.store,
    faults: server.faults,
    requests: server.requests,
    waitFor: (resource, namespace, name, predicate, timeoutMs = 15_000) => waitForObject(server.store, resource, namespace, name, predicate, timeoutMs),
    registry: server.registry,
    async stop() {
      await kubelet?.stop();
      await server.stop();
    },
  };
}

/** Predicate for `waitFor`: the pod is Running with condition Ready=True. */
export function podIsReady(pod: KubeObject | undefined): boolean {
  const status = pod?.['status'] as { phase?: string; conditions?: { type: string; status: string }[] } | undefined;
  return status?.phase === 'Running' && (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
