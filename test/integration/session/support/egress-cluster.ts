import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKubeconfig } from '@cli-mcp/egress';
import type { LocalEgressConfig } from '@cli-mcp/session';
import { PODS, startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { KUBECTL_PROBLEM } from '../../../support/prerequisites.js';

/** The investigation identity the gateway injects, and a token a sandbox "stole" (valid at the API as another user). */
export const INVESTIGATION = { token: 'inv-token-0123456789', user: 'investigator' } as const;
export const STOLEN = { token: 'STOLEN-token-abcdef', user: 'attacker' } as const;

/**
 * The host's first non-loopback IPv4 address: the fake API server listens there, like a cluster on the LAN, so
 * clients in a sandbox send it through their proxy variables (they bypass the proxy for loopback names only) and a
 * direct connection has no route.
 */
export function lanAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((info) => info?.family === 'IPv4' && !info.internal)?.address;
}

const python = spawnSync('/usr/bin/python3', ['-c', 'import requests']);
/** Why the egress tests cannot run here, or undefined. */
export const egressToolsProblem = KUBECTL_PROBLEM ?? (python.status !== 0 ? '/usr/bin/python3 with requests is not installed (Debian python3-requests, pulled in by python3-kubernetes)'
    : lanAddress() === undefined ? 'this host has no non-loopback IPv4 address for the fake API server' : undefined);

export interface EgressCluster {
  cluster: FakeCluster;
  /** `https://<lan address>:<port>`. */
  url: string;
  /** `<lan address>:<port>`. */
  authority: string;
  /** The backend's egress configuration: the cluster's kubeconfig as `--egress-kubeconfig`, an audit file. */
  egress: LocalEgressConfig;
  auditLog: string;
  /** Audit records written so far. */
  audit(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * A fake API server on the LAN address with two users (the investigation one, whose token the kubeconfig carries,
 * and the "stolen" one), one pod `x` marked Running (so kubectl attempts exec, attach and port-forward), and the
 * egress configuration a server would build from `--egress-kubeconfig` and `--egress-audit-log`.
 */
export async function startEgressCluster(): Promise<EgressCluster> {
  const host = lanAddress()!;
  const cluster = await startFakeCluster({
    host, kubelet: false, users: { [INVESTIGATION.token]: INVESTIGATION.user, [STOLEN.token]: STOLEN.user }, token: INVESTIGATION.token,
  });
  const pod = cluster.api.create(PODS, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  cluster.api.mutatePod('default', 'x', pod.metadata.uid as string, (p) => {
    p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'c', ready: true, state: { running: {} } }] };
  });
  const dir = mkdtempSync(join(tmpdir(), 'egress-it-'));
  const auditLog = join(dir, 'audit.jsonl');
  const config = parseKubeconfig(readFileSync(cluster.kubeconfigPath, 'utf8'), cluster.kubeconfigPath);
  return {
    cluster, url: cluster.url, authority: new URL(cluster.url).host, auditLog,
    egress: { allow: [], kubeconfig: { path: cluster.kubeconfigPath, config }, auditLog },
    audit: () => {
      try {
        return readFileSync(auditLog, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
      } catch {
        return [];
      }
    },
    async stop() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
