import type { Socket } from 'node:net';

/**
 * Which sessions have open connections, and which have ended (C-EGR-6). Revoking destroys the session's sockets
 * at once — tunnels, their TLS and upstream streams go with them — and refuses any connection that comes after.
 * Revoked ids are kept until `admit`: the local backend re-admits an id when a new sandbox of it starts (a client
 * may use an ended session's id again, and an idle-reaped session's next command recreates it).
 */
export class Sessions {
  private readonly open = new Map<string, Set<Socket>>();
  private readonly revoked = new Set<string>();

  isRevoked(sessionId: string): boolean {
    return this.revoked.has(sessionId);
  }

  /** Open connections of a session: the per-session cap keeps one session from starving the others. */
  count(sessionId: string): number {
    return this.open.get(sessionId)?.size ?? 0;
  }

  track(sessionId: string, socket: Socket): void {
    let sockets = this.open.get(sessionId);
    if (!sockets) {
      sockets = new Set();
      this.open.set(sessionId, sockets);
    }
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0 && this.open.get(sessionId) === sockets) this.open.delete(sessionId);
    });
  }

  revoke(sessionId: string): void {
    this.revoked.add(sessionId);
    for (const socket of this.open.get(sessionId) ?? []) socket.destroy();
    this.open.delete(sessionId);
  }

  /** A new life of an ended session: its id is accepted again (its earlier connections are gone, see `revoke`). */
  admit(sessionId: string): void {
    this.revoked.delete(sessionId);
  }

  closeAll(): void {
    for (const sockets of this.open.values()) for (const socket of sockets) socket.destroy();
    this.open.clear();
  }
}
