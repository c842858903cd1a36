import { describe, expect, it } from 'vitest';
import { hostnameOf, isLoopbackAddress, isLoopbackHostname, parseHostPort } from './address.js';

describe(isLoopbackAddress.name, () => {
  // Go TestIsLoopback, case for case (Go §2.4).
  it.each([
    ['localhost:8080', true],
    ['127.0.0.1:8080', true],
    ['[::1]:8080', true],
    ['localhost', true],
    ['127.0.0.1', true],
    ['10.0.0.1:8080', false],
    ['myhost.example.com:8080', false],
    ['0.0.0.0:8080', false],
    [':8080', false],
  ])('%s → %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });

  it('treats all of 127.0.0.0/8 and IPv4-mapped loopback as loopback, and LOCALHOST (Go is exact) as not', () => {
    expect(isLoopbackAddress('127.9.9.9:1')).toBe(true);
    expect(isLoopbackAddress('[::ffff:127.0.0.1]:1')).toBe(true);
    expect(isLoopbackAddress('LOCALHOST:1')).toBe(false);
  });
});

describe(parseHostPort.name, () => {
  it('splits host and port, IPv6 in brackets, port 0 allowed', () => {
    expect(parseHostPort('127.0.0.1:8080')).toEqual({ ok: true, value: { host: '127.0.0.1', port: 8080 } });
    expect(parseHostPort('[::1]:0')).toEqual({ ok: true, value: { host: '::1', port: 0 } });
    expect(parseHostPort(':9')).toEqual({ ok: true, value: { host: '', port: 9 } });
  });

  it.each([
    ['localhost', 'missing port'],
    ['::1:80', 'too many colons'],
    ['[::1]80', 'missing port'],
    ['host:http', 'invalid port "http"'],
    ['host:65536', 'invalid port "65536"'],
    ['[::1', 'missing "]"'],
  ])('rejects %s', (address, reason) => {
    const result = parseHostPort(address);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(reason);
  });
});

describe(hostnameOf.name, () => {
  it('extracts the hostname of Host and Origin values', () => {
    expect(hostnameOf('LocalHost:8080')).toBe('localhost');
    expect(hostnameOf('[::1]:8080')).toBe('::1');
    expect(hostnameOf('evil.example')).toBe('evil.example');
    expect(hostnameOf('http://127.0.0.1:3000', true)).toBe('127.0.0.1');
    expect(hostnameOf('null', true)).toBeUndefined();
    expect(hostnameOf('a b')).toBeUndefined();
  });
});

describe(isLoopbackHostname.name, () => {
  it.each([
    ['localhost', true],
    ['app.localhost', true],
    ['127.0.0.1', true],
    ['127.3.2.1', true],
    ['::1', true],
    ['localhost.evil.example', false],
    ['192.168.1.10', false],
    ['0.0.0.0', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHostname(host)).toBe(expected);
  });
});
