import { describe, expect, it } from 'vitest';
import { parseAuthority } from './authority.js';
import { Routes } from './routes.js';

// C-EGR-2: exact host:port, canonicalised like requests.
const PEM = '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n';
describe('Routes', () => {
  it('matches the canonical key only: no other port, no suffix', () => {
    const routes = new Routes([{ kind: 'allow', authority: 'API.example.com.:443' }]);
    expect(routes.match(parseAuthority('api.example.com:443')).kind).toBe('allow');
    for (const miss of ['api.example.com:8443', 'x.api.example.com:443', 'example.com:443']) {
      expect(() => routes.match(parseAuthority(miss))).toThrow(expect.objectContaining({ code: 'not_allowed', details: expect.objectContaining({ flag: `--egress-allow ${miss}` }) }));
    }
  });

  it('names what would allow a refused host: --egress-allow by default, the host\'s own hint otherwise (C-EGR-2)', () => {
    const hinted = new Routes([], (key) => ({ routes_file: `add "${key}" to "allow" in routes.json`, field: 'spec.proxy.targets[].domains' }));
    expect(() => hinted.match(parseAuthority('x.test:443'))).toThrow(
      expect.objectContaining({ details: { host: 'x.test:443', routes_file: 'add "x.test:443" to "allow" in routes.json', field: 'spec.proxy.targets[].domains' } }),
    );
  });

  it('refuses wildcards and one host:port listed twice as different kinds', () => {
    expect(() => new Routes([{ kind: 'allow', authority: '*.example.com:443' }])).toThrow(/wildcards/);
    expect(() => new Routes([{ kind: 'allow', authority: 'a.test:443' }, { kind: 'kubernetes', authority: 'A.test:443', ca: PEM, credential: { token: 't' } }])).toThrow(/both/);
  });

  it('refuses a Kubernetes route without a CA to pin or without a credential', () => {
    expect(() => new Routes([{ kind: 'kubernetes', authority: 'k.test:6443', ca: '', credential: { token: 't' } }])).toThrow(/certificate-authority-data/);
    expect(() => new Routes([{ kind: 'kubernetes', authority: 'k.test:6443', ca: PEM, credential: { token: ' ' } }])).toThrow(/no token/);
    expect(() => new Routes([{ kind: 'kubernetes', authority: 'k.test:6443', ca: PEM, credential: { cert: '', key: '' } }])).toThrow(/no token/);
  });
});
