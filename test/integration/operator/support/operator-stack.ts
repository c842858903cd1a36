/**
 * Harness of the operator's integration tests: the fake cluster (API server with CRDs, kubelet simulator running
 * REAL sandbox agents for sandbox pods), the CliMcpInstance CRD applied with the real kubectl, the investigation
 * kubeconfig Secret, a stand-in for the Deployment controller (the fake has none: `DeploymentSimulator`), and BUILT
 * operator processes (`bin/sandbox-controller.js --operator`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { COMPONENT_LABEL } from '@cli-mcp/podspec';
import { ENDPOINT_SLICES, SECRETS, startFakeCluster, untilStore, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { stringify } from 'yaml';
import { controllerSkipReason, startControllerProcess, type ControllerProcess } from '../../controller/support/controller-process.js';
import { DeploymentSimulator } from '@cli-mcp/testing';
import { publishEgressSandboxConfig } from '../../../support/egress-service.js';
import { KUBECTL, KUBECTL_PROBLEM } from '../../../support/prerequisites.js';

export const NAMESPACE = 'team';
export const CRD_NAME = 'climcpinstances.cli-mcp.redhat.com';
export const SERVER_IMAGE = 'quay.io/example/cli-mcp-server:test';
export const SANDBOX_IMAGE = 'quay.io/example/cli-mcp-sandbox:test';
export const EGRESS_IMAGE = 'quay.io/example/cli-mcp-egress:test';
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const run = promisify(execFile);

/** Why these tests cannot run here (printed and skipped; under CI=true a failure), or undefined. */
export const operatorSkipReason: string | undefined = controllerSkipReason ?? KUBECTL_PROBLEM;

export interface OperatorStack {
  readonly cluster: FakeCluster;
  readonly deployments: DeploymentSimulator;
  /** Starts a built operator replica (`--lease-duration 3s` unless given). */
  operator(identity: string, extraArgs?: string[]): Promise<ControllerProcess>;
  /** `kubectl <args>` against the cluster in the namespace; resolves with stdout, rejects with stderr. */
  kubectl(args: string[], input?: string): Promise<string>;
  /** Creates the admin Secret `cli-mcp-<instance>-kubeconfig` (key kubeconfig) an instance's sandboxes mount. */
  seedKubeconfig(instance: string): void;
  /**
   * What a running egress gateway of `instance` provides and the fake cluster has no controller or process for: a
   * ready endpoint of its Service (the gate's first condition) and the sandbox ConfigMap the gateway publishes
   * (`<i>-egress-sandbox`: CA and dummy kubeconfig), without which the kubelet does not start a sandbox pod.
   */
  gatewayUp(instance: string, address: string): void;
  /** `kubectl apply` of a CliMcpInstance; resolves with kubectl's output or rejects with its error text. */
  apply(name: string, spec: Record<string, unknown>): Promise<string>;
  instance(name: string): KubeObject | undefined;
  /** The instance's pods of `component` (`sandbox` or `server`), live ones only unless `all`. */
  pods(instance: string, component: string, all?: boolean): KubeObject[];
  /** Resolves once `check` holds, re-checked on every store change (no polling). */
  until(check: () => boolean, what: string | (() => string), timeoutMs?: number): Promise<void>;
  /** Resolves once the instance's condition `type` has `status` (and `reason`, when given). */
  untilCondition(name: string, type: string, status: 'True' | 'False', reason?: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export const KUBECONFIG_TEXT = (server: string) =>
  stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'investigation',
    clusters: [{ name: 'c', cluster: { server } }], users: [{ name: 'u', user: { token: 'investigation-token' } }],
    contexts: [{ name: 'investigation', context: { cluster: 'c', user: 'u', namespace: NAMESPACE } }],
  });

export async function startOperatorStack(options: { holdServerPods?: boolean } = {}): Promise<OperatorStack> {
  const cluster = await startFakeCluster({
    namespace: NAMESPACE,
    // Server and egress gateway pods are not sandbox agents: the kubelet simulator leaves them Pending.
    kubelet: { speedup: 20, maxTerminationGraceMs: 2_000, stopGraceMs: 1_000, pendingForever: (pod) => ['server', 'egress-gateway'].includes(pod.metadata.labels?.[COMPONENT_LABEL] ?? '') },
  });
  const scratch = mkdtempSync(join(tmpdir(), 'cli-mcp-operator-'));
  const operators: ControllerProcess[] = [];
  const deployments = new DeploymentSimulator(cluster, NAMESPACE, options);
  const kubectl = async (args: string[], input?: string): Promise<string> => {
    const child = run(KUBECTL!, ['--kubeconfig', cluster.kubeconfigPath, '--cache-dir', join(scratch, 'kubectl'), '-n', NAMESPACE, ...args], { encoding: 'utf8' });
    if (input !== undefined) child.child.stdin!.end(input);
    try {
      return (await child).stdout;
    } catch (error) {
      throw new Error((error as { stderr?: string }).stderr?.trim() || String(error), { cause: error });
    }
  };
  await kubectl(['apply', '--validate=false', '-f', join(REPO_ROOT, 'deploy/operator/crd.yaml')]);
  await cluster.waitFor('customresourcedefinitions', undefined, CRD_NAME, (o) => JSON.stringify(o?.['status'] ?? {}).includes('"type":"Established","status":"True"'));
  const seedKubeconfig = (instance: string): void => {
    cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `cli-mcp-${instance}-kubeconfig` }, stringData: { kubeconfig: KUBECONFIG_TEXT(cluster.url) } });
  };

  const gatewayUp = (instance: string, address: string): void => {
    cluster.api.create(ENDPOINT_SLICES, NAMESPACE, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${instance}-egress-x7k2p`, labels: { 'kubernetes.io/service-name': `${instance}-egress` } },
      addressType: 'IPv4', endpoints: [{ addresses: [address], conditions: { ready: true } }], ports: [{ name: 'proxy', port: 3128, protocol: 'TCP' }],
    });
    publishEgressSandboxConfig(cluster, NAMESPACE, instance);
  };
  const until = (check: () => boolean, what: string | (() => string), timeoutMs?: number): Promise<void> => untilStore(cluster.store, check, what, timeoutMs);
  const instance = (name: string) => cluster.store.get(CRD_NAME, NAMESPACE, name);
  const condition = (name: string, type: string) =>
    ((instance(name)?.['status'] as { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } | undefined)?.conditions ?? []).find((c) => c.type === type);
  return {
    cluster,
    deployments,
    kubectl,
    seedKubeconfig,
    gatewayUp,
    async operator(identity, extraArgs = []) {
      const process = await startControllerProcess(['--operator', '--kubeconfig', cluster.kubeconfigPath, '--identity', identity, '--lease-duration', '3s', ...extraArgs], {
        WATCH_NAMESPACE: NAMESPACE, RELATED_IMAGE_SERVER: SERVER_IMAGE, RELATED_IMAGE_SANDBOX: SANDBOX_IMAGE, RELATED_IMAGE_EGRESS: EGRESS_IMAGE,
      });
      operators.push(process);
      return process;
    },
    apply: (name, spec) => kubectl(['apply', '--validate=false', '-f', '-'], JSON.stringify({ apiVersion: 'cli-mcp.redhat.com/v1alpha1', kind: 'CliMcpInstance', metadata: { name }, spec })),
    instance,
    pods: (name, component, all = false) =>
      cluster.store.list('pods', NAMESPACE).filter((p) => p.metadata.labels?.['cli-mcp.redhat.com/instance'] === name && p.metadata.labels[COMPONENT_LABEL] === component && (all || !p.metadata.deletionTimestamp)),
    until,
    untilCondition: (name, type, status, reason, timeoutMs) =>
      until(() => {
        const c = condition(name, type);
        return c?.status === status && (reason === undefined || c.reason === reason);
      }, () => `${name} ${type}=${status}${reason ? ` (${reason})` : ''}; last: ${JSON.stringify(condition(name, type))}`, timeoutMs),
    async stop() {
      await Promise.all(operators.map((o) => o.stop()));
      deployments.stop();
      await cluster.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
