// The cluster of the Kubernetes hostile tests (issue 20 item 5; C-EGR-1, C-EGR-5, C-EGR-6): MCP SDK client →
// built server (`--backend kubernetes --egress-gateway`) → fake API server → fake kubelet → real sandbox agent and
// bash; the BUILT `cli-mcp-egress` runs against the same fake cluster, alone holding the investigation kubeconfig
// (a real bearer token), with that cluster as its Kubernetes route. Shared by the egress-hostile*.test.ts files.
//
// How a pod's traffic reaches the gateway: the kubelet's PodNetwork (libs/testing fake-kube/kubelet/pod-network.ts)
// stands in for cluster DNS + kube-proxy. `http://oc-egress.cli-mcp.svc:3128` in the pod's env and in its mounted
// dummy kubeconfig becomes `<pod IP>:3128`, relayed to the Service's EndpointSlice (the gateway) FROM the pod IP,
// so the gateway attributes the connection by source address exactly as in a cluster.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildSandboxEgressPolicy, SESSION_ID_LABEL as SESSION_LABEL } from '@cli-mcp/podspec';
import { createEgressService } from '../../../support/egress-service.js';
import { ENDPOINT_SLICES, NETWORK_POLICIES, startFakeCluster, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { startEgressProcess, type EgressProcess } from '../../../integration/egress/support/egress-process.js';
import { bash, connectHttpClient, structuredOf, textOf } from '../../mcp/support/mcp-client.js';
import { removeDir, startHttpServer, tempDir, type ServerProcess } from '../../mcp/support/server-process.js';
import { E2E_KUBELET, kubernetesServerArgs, seedInstanceKubeconfig } from './instance-args.js';

export const NS = 'cli-mcp';
export const SERVER = { token: 'server-token-0123', user: 'cli-mcp-server' };
export const INVESTIGATION = { token: 'investigation-token-4567', user: 'investigator' };
export const STOLEN = { token: 'STOLEN-token-89ab', user: 'attacker' };
export const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
/** Reads a SelfSubjectReview on stdin, prints its user name. */
export const USERNAME = `python3 -c "import json,sys; print(json.load(sys.stdin)['status']['userInfo']['username'])"`;

export interface HostileSandbox {
  readonly cluster: FakeCluster;
  readonly gateway: EgressProcess;
  readonly server: ServerProcess;
  /** An MCP client of session `session`. */
  readonly client: Client;
  /** The fake API server's `host:port`. */
  readonly apiAuthority: string;
  /** Runs `command` in the session's sandbox; the result must not be an MCP tool error. */
  sh(command: string): Promise<{ stdout: string; stderr: string; exit_code: number }>;
  /** The session's pod (not being deleted), once it exists. */
  podOf(): KubeObject | undefined;
  stop(): Promise<void>;
}

/** Starts the fake cluster, the built gateway and the built server, and connects a client as `session`. */
export async function startHostileSandbox(session: string): Promise<HostileSandbox> {
  const cluster = await startFakeCluster({
    namespace: NS, users: { [SERVER.token]: SERVER.user, [INVESTIGATION.token]: INVESTIGATION.user, [STOLEN.token]: STOLEN.user }, token: SERVER.token,
    kubelet: E2E_KUBELET,
  });
  const dir = tempDir('kube-egress-hostile');
  let gateway: EgressProcess | undefined;
  let server: ServerProcess | undefined;
  let client: Client | undefined;
  const stop = async (): Promise<void> => {
    await client?.close().catch(() => undefined);
    await server?.stop();
    await gateway?.stop('SIGKILL');
    await cluster.stop();
    removeDir(dir);
  };
  try {
    const investigation = await cluster.server.writeKubeconfig(join(dir, 'investigation.kubeconfig'), NS, { token: INVESTIGATION.token });
    // An allowed name that resolves to loopback: the gateway must refuse the address it resolved (C-EGR-3).
    writeFileSync(join(dir, 'routes.json'), JSON.stringify({ allow: ['localhost:1'] }));
    // The real investigation kubeconfig, as the Secret the gateway mounts in a deployment: without --egress-gateway
    // every sandbox would mount it (and the token scan of egress-hostile.test.ts would find it).
    seedInstanceKubeconfig(cluster, NS, readFileSync(investigation, 'utf8'));
    gateway = await startEgressProcess([
      '--namespace', NS, '--instance-name', 'oc', '--kubeconfig', cluster.kubeconfigPath, '--kubeconfig-file', investigation,
      '--routes-file', join(dir, 'routes.json'), '--ca-secret', 'oc-egress-ca', '--sandbox-configmap', 'oc-egress-sandbox',
      '--sandbox-proxy-url', `http://oc-egress.${NS}.svc:3128`,
    ]);
    await gateway.untilLog('published the sandbox ConfigMap', 60_000);
    // The gateway Service's endpoints (what the kubelet's PodNetwork relays to, and what the gate checks) and the
    // sandbox NetworkPolicy: the gate opens only with both (C-EGR-6).
    cluster.api.create(ENDPOINT_SLICES, NS, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'oc-egress-local', labels: { 'kubernetes.io/service-name': 'oc-egress' } },
      addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'proxy', port: gateway.proxyPort, protocol: 'TCP' }],
    });
    cluster.api.create(NETWORK_POLICIES, NS, buildSandboxEgressPolicy({ namespace: NS, instanceName: 'oc' }) as unknown as KubeObject);
    // --sandbox-dns none (the default): the gate also needs the Service, whose ClusterIP the pods get in hostAliases.
    createEgressService(cluster, NS, 'oc');
    const keyFile = join(dir, 'hmac.key');
    writeFileSync(keyFile, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
    server = await startHttpServer({
      args: kubernetesServerArgs(cluster.kubeconfigPath, NS, keyFile, '--egress-gateway', '--eager-acquire=false'),
    });
    client = await connectHttpClient(server.mcpUrl, session);
  } catch (error) {
    await stop();
    throw error;
  }
  const connected = client;
  return {
    cluster, gateway, server, client: connected, apiAuthority: new URL(cluster.url).host, stop,
    async sh(command) {
      const result = await bash(connected, command, 60);
      if (result.isError) throw new Error(`bash failed: ${textOf(result)}`);
      return structuredOf(result);
    },
    podOf: () => cluster.store.list('pods', NS).find((p) => p.metadata.labels?.[SESSION_LABEL] === session && !p.metadata.deletionTimestamp),
  };
}
