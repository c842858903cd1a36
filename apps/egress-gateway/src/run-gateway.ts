import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { Backoff, createAdminServer, delay, errorText, metricsRoute, systemClock } from '@cli-mcp/common';
import { EgressGateway, PromEgressMetrics, Routes, dummyKubeconfig, jsonLineSink, type RuntimeCa } from '@cli-mcp/egress';
import { ListWatchPodInformer, loadKubeConfig } from '@cli-mcp/kube/client-node';
import { sandboxSelector } from '@cli-mcp/podspec';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { PodAttribution } from './attribution/pod-attribution.js';
import type { EgressGatewayConfig } from './config/egress-gateway-config.js';
import { ClientNodeEgressApi } from './kube/client-node-egress-api.js';
import { publishSandboxConfigMap } from './kube/sandbox-configmap.js';
import { CaSecretError, loadSharedCa } from './kube/shared-ca.js';

/** The kubeconfig sandboxes get when the gateway routes no cluster: valid, and empty. */
const EMPTY_KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n';

/**
 * Runs `cli-mcp-egress` (issue 20 item 3): the admin port first (so `/readyz` can say what start-up waits for),
 * the shared CA from its Secret, the gateway on the proxy port attributing each connection by its source pod IP
 * (C-EGR-6), the sandbox ConfigMap published. API failures are retried with back-off and shown by `/readyz`; only an
 * unusable CA Secret stops the process. SIGTERM: stop accepting, close the gateway and its tunnels, exit 0.
 */
export async function runGateway(config: EgressGatewayConfig, logger: Logger): Promise<void> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const api = new ClientNodeEgressApi(kubeConfig, config.namespace, config.instanceName, registry);
  // A refused host's 403 names both ways to allow it: the routes file (kustomize: the routes ConfigMap) and the
  // CliMcpInstance field the operator renders that file from (C-EGR-2).
  const routes = new Routes(config.routes, (key) => ({ routes_file: `add "${key}" to "allow" in ${config.routesFile}`, field: 'spec.proxy.targets[].domains' }));
  const stopping = new AbortController();
  const informerLog = logger.child({ component: 'pod-informer' });
  const informer = new ListWatchPodInformer({
    kubeConfig, namespace: config.namespace, labelSelector: sandboxSelector(config.instanceName), registry, clock: systemClock, random: Math.random,
    logger: { info: (message, fields) => informerLog.info(fields ?? {}, message), warn: (message, fields) => informerLog.warn(fields ?? {}, message) },
  });
  const state: { ca?: RuntimeCa; caProblem?: string; published: boolean; publishProblem?: string } = { published: false };
  // Routes are loaded before anything listens (a bad --routes-file never starts the process), so they are no reason here.
  const notReady = (): string[] => [
    ...(state.ca ? [] : [`CA not loaded from Secret ${config.caSecret}${state.caProblem ? `: ${state.caProblem}` : ''}`]),
    ...(informer.synced ? [] : ['pod informer not synced']),
    ...(informer.synced && informer.problem ? [informer.problem] : []),
    ...(state.published ? [] : [`sandbox ConfigMap ${config.sandboxConfigMap} not published${state.publishProblem ? `: ${state.publishProblem}` : ''}`]),
  ];
  // `/healthz`: the process answers; `/readyz`: 200 only when the gateway can attribute and serve, else 503 with the
  // reasons; `/metrics`: the process's registry.
  const admin = createAdminServer({
    '/healthz': () => ({ status: 200, json: { status: 'ok' } }),
    '/readyz': () => {
      const reasons = notReady();
      return reasons.length === 0 ? { status: 200, json: { status: 'ready' } } : { status: 503, json: { status: 'not ready', reasons } };
    },
    '/metrics': metricsRoute(registry),
  });
  const adminPort = await listen(admin.server, config.adminPort);
  const shutdown = new Shutdown(logger, stopping);
  shutdown.add(() => {
    admin.beginShutdown();
    return new Promise<void>((resolve) => admin.server.close(() => resolve()));
  });

  const loaded = await retry(logger, stopping.signal, 'CA Secret', (problem) => (state.caProblem = problem), (signal) => loadSharedCa(api, config.namespace, config.caSecret, signal));
  if (!loaded) return;
  state.ca = loaded.ca;
  logger.info({ secret: config.caSecret, created: loaded.created }, loaded.created ? 'created the shared CA Secret' : 'loaded the shared CA Secret');

  const gateway = new EgressGateway({ routes, ca: loaded.ca, audit: jsonLineSink((line) => process.stdout.write(line)), metrics: new PromEgressMetrics(registry) });
  const attribution = new PodAttribution(config.instanceName, gateway);
  informer.onChange((change) => attribution.apply(change));
  informer.onStateChange(() => {
    if (informer.synced) attribution.resync(informer.pods());
  });
  const proxy = createTcpServer();
  proxy.on('error', (error) => logger.error({ err: error }, 'proxy listener error'));
  gateway.attach(proxy, (socket) => attribution.contextOf(socket.remoteAddress));
  const proxyPort = await listen(proxy, config.proxyPort);
  informer.start();
  shutdown.add(async () => {
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await gateway.close();
    await informer.stop();
  });
  logger.info(
    { proxy_port: proxyPort, admin_port: adminPort, namespace: config.namespace, instance: config.instanceName, routes: routes.all().map((r) => `${r.target.key} (${r.kind})`), version: config.version },
    'listening',
  );

  const data = {
    'ca.crt': loaded.ca.certPem,
    kubeconfig: config.investigation ? dummyKubeconfig(config.investigation.config, config.investigation.path, loaded.ca.certPem, { proxyUrl: config.sandboxProxyUrl }) : EMPTY_KUBECONFIG,
  };
  const outcome = await retry(logger, stopping.signal, 'sandbox ConfigMap', (problem) => (state.publishProblem = problem), (signal) => publishSandboxConfigMap(api, config.sandboxConfigMap, data, signal));
  if (outcome === undefined) return;
  state.published = true;
  logger.info({ configmap: config.sandboxConfigMap, outcome }, 'published the sandbox ConfigMap');
}

/** `attempt` until it succeeds, with back-off (1 s … 30 s); a `CaSecretError` is not retried. Undefined when stopped. */
async function retry<T>(logger: Logger, signal: AbortSignal, what: string, problem: (text: string) => void, attempt: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
  const backoff = new Backoff({ initialMs: 1000, maxMs: 30_000, random: Math.random });
  while (!signal.aborted) {
    try {
      return await attempt(AbortSignal.any([signal, AbortSignal.timeout(30_000)]));
    } catch (error) {
      if (signal.aborted) return undefined;
      if (error instanceof CaSecretError) throw error;
      const delayMs = backoff.next();
      problem(errorText(error));
      logger.warn({ error: errorText(error), retry_in_ms: Math.round(delayMs) }, `${what}: API request failed; retrying`);
      if (!(await delay(systemClock, delayMs, signal))) break;
    }
  }
  return undefined;
}

function listen(server: Server | import('node:http').Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // No host: every interface, IPv6 and IPv4 (a v4 peer shows as ::ffff:a.b.c.d; attribution strips it).
    server.listen(port, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** SIGTERM/SIGINT: the steps in reverse order of registration (the proxy before the admin port), then exit 0; a second signal exits 1. */
class Shutdown {
  private readonly steps: Array<() => Promise<void>> = [];

  constructor(private readonly logger: Logger, private readonly stopping: AbortController) {
    process.on('SIGTERM', (signal) => this.stop(signal));
    process.on('SIGINT', (signal) => this.stop(signal));
  }

  add(step: () => Promise<void>): void {
    this.steps.unshift(step);
  }

  private stop(signal: NodeJS.Signals): void {
    if (this.stopping.signal.aborted) {
      this.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    this.stopping.abort();
    this.logger.info({ signal }, 'received shutdown signal: closing the proxy');
    void (async () => {
      for (const step of this.steps) await step().catch((error: unknown) => this.logger.warn({ err: error }, 'shutdown step failed'));
      this.logger.info('shutdown complete');
      process.exit(0);
    })();
  }
}
