import { BlockList, isIP } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export interface HostPort {
  /** Host without brackets (`::1`, `127.0.0.1`, `localhost`, `` for all interfaces). */
  readonly host: string;
  readonly port: number;
}

export type HostPortResult = { readonly ok: true; readonly value: HostPort } | { readonly ok: false; readonly error: string };

/**
 * Go `net.SplitHostPort` plus a port check: `host:port` or `[ipv6]:port`, port 0–65535 (0 = ephemeral).
 */
export function parseHostPort(address: string): HostPortResult {
  const fail = (reason: string): HostPortResult => ({ ok: false, error: `${reason} in address ${JSON.stringify(address)}` });
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end < 0) return fail('missing "]"');
    host = address.slice(1, end);
    if (address[end + 1] !== ':') return fail('missing port');
    portText = address.slice(end + 2);
  } else {
    const colon = address.lastIndexOf(':');
    if (colon < 0) return fail('missing port');
    host = address.slice(0, colon);
    if (host.includes(':')) return fail('too many colons (write IPv6 as [::1]:8080)');
    portText = address.slice(colon + 1);
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return fail(`invalid port ${JSON.stringify(portText)}`);
  return { ok: true, value: { host, port: Number(portText) } };
}

/** True for IP literals in 127.0.0.0/8 or ::1 (IPv4-mapped forms included). */
export function isLoopbackIp(host: string): boolean {
  const family = isIP(host);
  if (family === 0) return false;
  return loopback.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The Go server's `IsLoopback` (Go §2.4): split host:port (the whole string is the host when that fails);
 * exactly `localhost`, or a loopback IP. `0.0.0.0`, `:8080` and names other than `localhost` are not loopback.
 */
export function isLoopbackAddress(address: string): boolean {
  const parsed = parseHostPort(address);
  const host = parsed.ok ? parsed.value.host : address;
  return host === 'localhost' || isLoopbackIp(host);
}

/**
 * Hostname of an HTTP `Host`/`Origin` value (`name`, `name:port`, `[v6]:port`, or a full origin URL), lower
 * case, without brackets; `undefined` when it cannot be parsed.
 */
export function hostnameOf(value: string, isOrigin = false): string | undefined {
  try {
    const hostname = new URL(isOrigin ? value : `http://${value}`).hostname;
    if (hostname === '') return undefined;
    return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  } catch {
    return undefined;
  }
}

/** Names a browser can only reach on this machine: `localhost` (and `*.localhost`), 127.0.0.0/8, ::1. */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackIp(name);
}
