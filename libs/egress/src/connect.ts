import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { parseAuthority } from './authority.js';
import { EgressError, toEgressError } from './errors.js';
import type { LeafCache } from './leaf-cache.js';
import { refuseSocket, type ConnectionContext, type Recorder } from './record.js';
import type { Resolver } from './resolver.js';
import type { Route, Routes } from './routes.js';
import { resolveDestination, type Destination } from './upstream.js';

/** An open tunnel: the inner server reads it from the decrypted socket to forward each request. */
export interface Tunnel {
  readonly context: ConnectionContext;
  readonly destination: Destination;
}

export interface ConnectDeps {
  readonly routes: Routes;
  readonly resolver: Resolver;
  readonly leaves: LeafCache;
  readonly recorder: Recorder;
  readonly handshakeTimeoutMs: number;
  readonly isRevoked: (sessionId: string) => boolean;
  /** Opens an upstream connection ahead of the first request, in parallel with the client's handshake. */
  readonly warm: (destination: Destination) => void;
  /** Hands the decrypted (or plaintext) stream to the inner HTTP server. */
  readonly open: (stream: Socket, tunnel: Tunnel) => void;
}

const TLS_HANDSHAKE = 0x16;

/**
 * A CONNECT (C-EGR-2…4): strict authority, exact route, the session still live, the name resolved and checked
 * before `200` is sent; then TLS terminated with a leaf for the CONNECT host, a ClientHello naming another host
 * refused; plaintext inside only on an allow route with `plainHttp`.
 */
export async function handleConnect(deps: ConnectDeps, req: IncomingMessage, socket: Socket, head: Buffer, context: ConnectionContext): Promise<void> {
  // node:http removes its own error listener when it hands over a CONNECT socket: without this one, a client
  // reset would be an uncaught error that takes the whole gateway (every session) down.
  socket.on('error', () => socket.destroy());
  const started = performance.now();
  const raw = req.url ?? '';
  let route: Route | undefined;
  const record = (status: number, reason: string, host = route?.target.key ?? raw.slice(0, 300)): void =>
    deps.recorder.record(context, started, { method: 'CONNECT', host, path: '', status, bytes: 0, reason, route: route?.kind ?? 'none', credentialInjected: false });
  const refuse = (error: EgressError): void => {
    record(error.status, error.code);
    refuseSocket(socket, error);
  };
  let destination: Destination;
  let leaf: Awaited<ReturnType<LeafCache['context']>>;
  try {
    if (deps.isRevoked(context.sessionId)) throw new EgressError('session_revoked', 'this session has ended; its egress is closed');
    route = deps.routes.match(parseAuthority(raw));
    destination = await resolveDestination(route, deps.resolver, true);
    leaf = await deps.leaves.context(route.target.host, route.target.ip !== null);
  } catch (error) {
    refuse(toEgressError(error));
    return;
  }
  if (socket.destroyed) return;
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  const timer = setTimeout(() => socket.destroy(), deps.handshakeTimeoutMs);
  socket.once('close', () => clearTimeout(timer));
  const first = await firstByte(socket, head);
  if (first === undefined) return;
  const target = route.target;
  if (first !== TLS_HANDSHAKE) {
    if (route.kind !== 'allow' || !route.plainHttp) {
      clearTimeout(timer);
      refuse(new EgressError('plain_http_refused', `plain HTTP to ${target.key} is not allowed; use https`, { host: target.key }));
      return;
    }
    clearTimeout(timer);
    record(200, 'ok');
    deps.open(socket, { context, destination: { ...destination, tls: false } });
    return;
  }
  const tls = new TLSSocket(socket, {
    isServer: true,
    secureContext: leaf,
    ALPNProtocols: ['http/1.1'],
    // C-EGR-4: the ClientHello may name only the CONNECT host (a client without SNI gets that host's leaf).
    SNICallback: (servername, callback) => {
      const sni = servername.toLowerCase().replace(/\.$/, '');
      if (sni === target.host) callback(null, leaf);
      else {
        record(421, 'authority_mismatch', `${target.key} (SNI ${servername.slice(0, 253)})`);
        callback(new Error('SNI does not name the CONNECT host'));
      }
    },
  });
  deps.warm(destination);
  tls.on('error', () => socket.destroy());
  tls.once('secure', () => {
    clearTimeout(timer);
    record(200, 'ok');
    deps.open(tls as unknown as Socket, { context, destination });
  });
}

/** Waits for the first byte of the tunnel without consuming it; undefined when the client left first. */
function firstByte(socket: Socket, head: Buffer): Promise<number | undefined> {
  if (head.length > 0) {
    socket.unshift(head);
    return Promise.resolve(head[0]);
  }
  return new Promise((resolve) => {
    const onReadable = (): void => {
      const chunk = socket.read(1) as Buffer | null;
      if (chunk === null) return;
      socket.off('readable', onReadable);
      socket.off('close', onClose);
      socket.unshift(chunk);
      resolve(chunk[0]);
    };
    const onClose = (): void => {
      socket.off('readable', onReadable);
      resolve(undefined);
    };
    socket.on('readable', onReadable);
    socket.once('close', onClose);
  });
}
