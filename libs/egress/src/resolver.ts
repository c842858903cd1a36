import { lookup } from 'node:dns/promises';
import { connect, isIP, type Socket } from 'node:net';

/** The resolver port (C-EGR-3): every address a name has. Tests inject a table so nothing outside is contacted. */
export type Resolver = (host: string) => Promise<readonly string[]>;

/** The dialer port: a TCP connection to an address the gateway checked, never a name (no second resolution). */
export type Dialer = (address: string, port: number) => Socket;

export const systemResolver: Resolver = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
};

export const directDialer: Dialer = (address, port) => {
  if (isIP(address) === 0) throw new Error(`the dialer takes an address, not the name ${address}`);
  // No Nagle: a request head and its body must not wait for a delayed ACK (a 40 ms stall per request).
  return connect({ host: address, port, noDelay: true });
};
