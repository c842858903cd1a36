import type { Duplex } from 'node:stream';

/**
 * Absolute deadlines for a request head (slowloris, issue 20 item 6). node:http enforces `headersTimeout` only on
 * servers that listen, and the gateway's servers never do (sockets are handed to them), so the gateway keeps its
 * own: armed when a connection or tunnel opens and when a response ends (the keep-alive wait for the next head),
 * cleared when a head is complete. A trickle of bytes does not extend it, unlike a socket inactivity timeout.
 */
export class HeadDeadlines {
  private readonly timers = new WeakMap<Duplex, NodeJS.Timeout>();
  private readonly watched = new WeakSet<Duplex>();

  /** On expiry: `408` when a head was awaited for the first time (`reply`), a silent close for an idle connection. */
  arm(socket: Duplex, ms: number, reply: boolean): void {
    this.disarm(socket);
    const timer = setTimeout(() => {
      if (reply && socket.writable) socket.end('HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      socket.destroy();
    }, ms);
    timer.unref();
    this.timers.set(socket, timer);
    if (!this.watched.has(socket)) {
      this.watched.add(socket);
      socket.once('close', () => this.disarm(socket));
    }
  }

  disarm(socket: Duplex): void {
    const timer = this.timers.get(socket);
    if (timer) clearTimeout(timer);
    this.timers.delete(socket);
  }
}
