import { describe, expect, it } from 'vitest';
import { parseAuthority } from './authority.js';
import { EgressError } from './errors.js';
import { tunnelPath } from './tunnel-path.js';

// C-EGR-4: inside a tunnel, a request target may name only the CONNECT target.
const tunnel = (authority: string, tls = true) => ({ destination: { route: { kind: 'allow' as const, authority, target: parseAuthority(authority) }, address: '93.184.215.14', tls } });

describe('tunnelPath', () => {
  it.each([
    ['/a?b', '/a?b'], ['https://api.example.test/a', '/a'], ['https://API.example.test:443/a', '/a'], ['https://api.example.test.', '/'],
    ['https://api.example.test?q', '/?q'],
  ])('takes %s as the path %s', (url, path) => {
    expect(tunnelPath(url, tunnel('api.example.test:443'))).toBe(path);
  });

  it.each(['https://elsewhere.test/a', 'http://api.example.test/a', 'https://api.example.test:8443/a', 'https://api.example.test@evil.test/', '*', 'api.example.test/a'])('refuses %s', (url) => {
    expect(tunnelPath(url, tunnel('api.example.test:443'))).toBeInstanceOf(EgressError);
  });

  it('needs the port in the URL when the target is not on the default port', () => {
    expect(tunnelPath('https://kube.example.test:6443/api', tunnel('kube.example.test:6443'))).toBe('/api');
    expect(tunnelPath('https://kube.example.test/api', tunnel('kube.example.test:6443'))).toBeInstanceOf(EgressError);
  });
});
