import { X509Certificate } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { LeafCache } from './leaf-cache.js';
import { RuntimeCa } from './runtime-ca.js';

// C-EGR-4: leaves for CONNECT hosts from the runtime CA, cached and re-minted before expiry.
let ca: RuntimeCa;
beforeAll(async () => {
  ca = await RuntimeCa.generate('leaf test CA');
});

describe('RuntimeCa', () => {
  it('mints a P-256 serverAuth leaf for a name, signed by the CA, with SAN and AKI', async () => {
    const leaf = await ca.mintLeaf('api.example.test', false, 3_600_000);
    const cert = new X509Certificate(leaf.cert);
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.checkHost('api.example.test')).toBe('api.example.test');
    expect(cert.checkHost('other.example.test')).toBeUndefined();
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(cert.ca).toBe(false);
  });

  it('mints an IP SAN for an IP literal', async () => {
    const cert = new X509Certificate((await ca.mintLeaf('10.0.0.1', true, 3_600_000)).cert);
    expect(cert.checkIP('10.0.0.1')).toBe('10.0.0.1');
  });

  it('round-trips through PEM and refuses a key that is not the CA\'s', async () => {
    const generated = await RuntimeCa.generate('pem CA');
    const other = await RuntimeCa.generate('other CA');
    const keyOf = async (c: RuntimeCa): Promise<string> => (await c.mintLeaf('x.test', false, 1000)).key;
    await expect(RuntimeCa.fromPem(generated.certPem, await keyOf(other))).rejects.toThrow(/does not match/);
    const leafOfCa = await generated.mintLeaf('x.test', false, 1000);
    await expect(RuntimeCa.fromPem(leafOfCa.cert.split('-----END CERTIFICATE-----')[0] + '-----END CERTIFICATE-----', leafOfCa.key)).rejects.toThrow(/not a CA/);
  });
});

describe('LeafCache', () => {
  it('mints once per host, shares a mint in flight and serves warm hits from the cache', async () => {
    const cache = new LeafCache(ca);
    const [a, b] = await Promise.all([cache.context('a.test', false), cache.context('a.test', false)]);
    expect(a).toBe(b);
    expect(await cache.context('a.test', false)).toBe(a);
    expect(cache.mints).toBe(1);
    await cache.context('b.test', false);
    expect(cache.mints).toBe(2);
  });

  it('re-mints when less than the renew fraction of the lifetime is left', async () => {
    let now = Date.now();
    const cache = new LeafCache(ca, { validMs: 10_000, renewFraction: 0.2, now: () => now });
    const first = await cache.context('a.test', false);
    now += 7_000;
    expect(await cache.context('a.test', false)).toBe(first);
    now += 1_500;
    expect(await cache.context('a.test', false)).not.toBe(first);
    expect(cache.mints).toBe(2);
  });

  it('drops the least recently used host beyond its bound', async () => {
    const cache = new LeafCache(ca, { maxEntries: 2 });
    await cache.context('a.test', false);
    await cache.context('b.test', false);
    await cache.context('a.test', false);
    await cache.context('c.test', false);
    await cache.context('a.test', false);
    expect(cache.mints).toBe(3);
    await cache.context('b.test', false);
    expect(cache.mints).toBe(4);
  });
});
