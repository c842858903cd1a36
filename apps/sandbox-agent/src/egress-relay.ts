import { connect, createServer, type Server, type Socket } from 'node:net';

export interface EgressRelayOptions {
  /** The egress gateway's Unix socket, bind-mounted read-only into the sandbox by the server. */
  socketPath: string;
  /** Loopback port clients reach through `HTTP_PROXY` (3128). */
  port: number;
  host?: string;
}

/** What a client gets when the gateway's socket refuses it: an HTTP answer naming the cause, never a bare reset. */
export function unreachableResponse(code: string): string {
  const body = JSON.stringify({
    error: 'gateway_unavailable',
    message: `the egress gateway of this sandbox is not reachable (${code}): the session has ended or the server is stopping`,
  });
  // The reason phrase is what Go clients (kubectl) and Python print for a failed CONNECT, so it says what happened.
  return `HTTP/1.1 502 cli-mcp egress gateway unreachable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/**
 * The sandbox end of local egress (`--local-network proxy`, C-EGR-1): a TCP listener on the sandbox's own
 * loopback that splices each connection to the gateway's per-session Unix socket. It reads nothing and decides
 * nothing — the gateway parses, checks and attributes (the socket is the session's identity) — so a client that
 * speaks to the socket directly gains nothing. The agent runs it because it is the one process that lives exactly
 * as long as the sandbox; it costs one listening socket until a client connects.
 */
export function startEgressRelay(options: EgressRelayOptions): Promise<Server> {
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => relay(client, options.socketPath));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host: options.host ?? '127.0.0.1' }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function relay(client: Socket, socketPath: string): void {
  const gateway = connect({ path: socketPath, allowHalfOpen: true });
  let spliced = false;
  client.on('error', () => gateway.destroy());
  gateway.on('error', (error: NodeJS.ErrnoException) => {
    // Before the splice nothing was sent either way: answer the client; after it, the gateway cut the stream.
    if (spliced || !client.writable) return void client.destroy();
    // What the client sent is never read: once the answer is out, the connection is closed both ways.
    client.once('finish', () => client.destroy());
    client.end(unreachableResponse(error.code ?? 'error'));
  });
  gateway.once('connect', () => {
    spliced = true;
    gateway.setNoDelay?.(true);
    // Data the client sent while the gateway connected waits in its (paused) stream; pipe picks it up. Each end
    // is passed on as a half-close, so request/response protocols that shut down writing keep working.
    client.pipe(gateway);
    gateway.pipe(client);
  });
  // One side gone for good: what is still queued for the other is delivered, then that side is closed too.
  client.once('close', () => closeAfterFlush(gateway));
  gateway.once('close', () => {
    if (spliced) closeAfterFlush(client);
  });
}

function closeAfterFlush(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) return void socket.destroy();
  socket.once('finish', () => socket.destroy());
  socket.end();
}
