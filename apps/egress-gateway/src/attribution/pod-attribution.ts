import type { V1Pod } from '@kubernetes/client-node';
import type { ConnectionContext } from '@cli-mcp/egress';
import type { PodChange } from '@cli-mcp/kube';
import { SESSION_ID_LABEL } from '@cli-mcp/podspec';

/** What attribution tells the gateway: `EgressGateway.revoke` and `admit`. */
export interface SessionGate {
  revoke(sessionId: string): void;
  admit(sessionId: string): void;
}

/** One live sandbox pod as attribution sees it: the address it sends from and the session it serves, if any. */
interface Tenant {
  readonly ip: string;
  readonly sessionId: string | undefined;
}

/**
 * Who a proxy connection belongs to, from its source address (C-EGR-6): the informer's sandbox pods map
 * `status.podIP` → the `session-id` label. An address that maps to no pod, to a warm pod (no label), or to more
 * than one live pod (an IP reassigned before the informer saw the old pod go) belongs to no session: the gateway
 * refuses it. Revocation follows the pod: when a session's pod is deleted (or starts terminating), changes IP or
 * loses its label, the session is revoked (its open tunnels close now); when the label appears on a pod the
 * session is admitted again, so a session that moved to a new pod is served from the new address only.
 */
export class PodAttribution {
  private readonly byUid = new Map<string, Tenant>();
  private readonly byIp = new Map<string, Set<string>>();

  constructor(private readonly instance: string, private readonly gate: SessionGate) {}

  /** The session of a connection from `remoteAddress` (`::ffff:10.0.0.7` is `10.0.0.7`), or undefined. */
  contextOf(remoteAddress: string | undefined): ConnectionContext | undefined {
    if (remoteAddress === undefined) return undefined;
    const uids = this.byIp.get(remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, ''));
    if (!uids || uids.size !== 1) return undefined;
    const sessionId = this.byUid.get([...uids][0]!)?.sessionId;
    return sessionId === undefined ? undefined : { sessionId, instance: this.instance };
  }

  apply(change: PodChange): void {
    this.set(uidOf(change.pod), change.type === 'deleted' ? undefined : tenantOf(change.pod));
  }

  /** After a (re-)list: the cache is the truth; pods missing from it are gone. */
  resync(pods: readonly V1Pod[]): void {
    const live = new Set(pods.map(uidOf));
    for (const uid of [...this.byUid.keys()]) if (!live.has(uid)) this.set(uid, undefined);
    for (const pod of pods) this.set(uidOf(pod), tenantOf(pod));
  }

  private set(uid: string, next: Tenant | undefined): void {
    const previous = this.byUid.get(uid);
    if (previous?.ip === next?.ip && previous?.sessionId === next?.sessionId) return;
    if (previous) {
      this.byUid.delete(uid);
      const sharing = this.byIp.get(previous.ip);
      sharing?.delete(uid);
      if (sharing?.size === 0) this.byIp.delete(previous.ip);
      if (previous.sessionId !== undefined) this.end(previous.sessionId);
    }
    if (next) {
      this.byUid.set(uid, next);
      this.byIp.set(next.ip, (this.byIp.get(next.ip) ?? new Set()).add(uid));
      if (next.sessionId !== undefined) this.gate.admit(next.sessionId);
    }
  }

  /**
   * Revokes a session whose pod went. The gateway tracks connections per session, not per pod, so when another
   * live pod still serves the session (a replacement started before the old one went), that one's connections are
   * cut too and the session is admitted again at once: they reconnect, the old pod's address no longer maps.
   */
  private end(sessionId: string): void {
    this.gate.revoke(sessionId);
    for (const tenant of this.byUid.values()) {
      if (tenant.sessionId === sessionId) {
        this.gate.admit(sessionId);
        return;
      }
    }
  }
}

function uidOf(pod: V1Pod): string {
  return pod.metadata?.uid ?? `name:${pod.metadata?.name ?? ''}`;
}

/**
 * A pod that can send traffic as a sandbox: it has an IP, is not terminating or finished, and does not use the
 * node's network (its address would be every host-network process's of that node).
 */
function tenantOf(pod: V1Pod): Tenant | undefined {
  const ip = pod.status?.podIP;
  if (!ip || pod.metadata?.deletionTimestamp || pod.spec?.hostNetwork) return undefined;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
  const sessionId = pod.metadata?.labels?.[SESSION_ID_LABEL];
  return { ip, sessionId: sessionId === '' ? undefined : sessionId };
}
