import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { EgressError } from './errors.js';

/** A canonical `host:port`: lowercase, no trailing dot, punycode; IPv6 compressed and bracketed in `key`. */
export interface Authority {
  /** The host as used for SNI, certificates and lookups (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** `host:port` or `[v6]:port`: the key routes are looked up by (C-EGR-2). */
  readonly key: string;
  readonly ip: 4 | 6 | null;
}

const PORT = /^[1-9][0-9]{0,4}$/;
const HOST_CHARS = /^[a-z0-9._-]+$/;
const IPV4_DOTTED = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;

function bad(input: string, why: string): EgressError {
  return new EgressError('bad_authority', `malformed authority ${JSON.stringify(input.slice(0, 300))}: ${why}; expected HOST:PORT or [IPv6]:PORT`);
}

/**
 * Parses a CONNECT target or an absolute-form URL's authority strictly (C-EGR-2). Refused: userinfo, zone ids,
 * a missing, non-decimal, zero-padded or out-of-range port, IPv4 in any form but dotted decimal (`127.1`,
 * `0x7f.0.0.1`: the WHATWG parser would silently turn them into another address), and any character a DNS name
 * does not have. `defaultPort` serves absolute-form `http://host/` only; a CONNECT always names its port.
 */
export function parseAuthority(input: string, defaultPort?: number): Authority {
  if (input.length === 0 || input.length > 300) throw bad(input, 'empty or too long');
  // eslint-disable-next-line no-control-regex
  if (/[@%\s\\/?#\u0000-\u001f\u007f]/.test(input)) throw bad(input, 'userinfo, zone ids, paths and control characters are not allowed');
  let hostPart: string;
  let portPart: string | undefined;
  if (input.startsWith('[')) {
    const close = input.indexOf(']');
    if (close < 0) throw bad(input, 'unclosed [');
    hostPart = input.slice(1, close);
    const rest = input.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) throw bad(input, 'junk after ]');
    portPart = rest === '' ? undefined : rest.slice(1);
    if (!ipaddr.IPv6.isValid(hostPart)) throw bad(input, 'not an IPv6 address inside [ ]');
  } else {
    const colon = input.lastIndexOf(':');
    if (input.indexOf(':') !== colon) throw bad(input, 'an IPv6 address must be in [ ]');
    hostPart = colon < 0 ? input : input.slice(0, colon);
    portPart = colon < 0 ? undefined : input.slice(colon + 1);
  }
  const port = parsePort(input, portPart, defaultPort);
  if (input.startsWith('[')) {
    const host = ipaddr.IPv6.parse(hostPart).toString();
    return { host, port, key: `[${host}]:${port}`, ip: 6 };
  }
  const host = canonicalHost(input, hostPart);
  const ip = IPV4_DOTTED.test(host) ? 4 : null;
  return { host, port, key: `${host}:${port}`, ip };
}

function parsePort(input: string, portPart: string | undefined, defaultPort: number | undefined): number {
  if (portPart === undefined) {
    if (defaultPort === undefined) throw bad(input, 'no port');
    return defaultPort;
  }
  if (!PORT.test(portPart)) throw bad(input, 'the port must be decimal without leading zeros');
  const port = Number(portPart);
  if (port > 65_535) throw bad(input, 'the port is out of range');
  return port;
}

function canonicalHost(input: string, raw: string): string {
  const trimmed = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  if (trimmed === '' || trimmed.endsWith('.') || trimmed.startsWith('.')) throw bad(input, 'empty host or label');
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(trimmed);
  const lower = trimmed.toLowerCase();
  const host = domainToASCII(lower);
  if (host === '') throw bad(input, 'not a valid host name');
  // For an ASCII host the only change allowed is the lowercase: anything else means the URL parser reread it.
  if (ascii && host !== lower) throw bad(input, 'a numeric host must be dotted-decimal IPv4');
  if (!HOST_CHARS.test(host) || host.length > 253) throw bad(input, 'not a valid host name');
  if (host.split('.').some((label) => label.length === 0 || label.length > 63)) throw bad(input, 'empty or over-long label');
  if (/^[0-9.]+$/.test(host) && !IPV4_DOTTED.test(host)) throw bad(input, 'a numeric host must be dotted-decimal IPv4');
  return host;
}
