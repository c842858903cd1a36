import 'reflect-metadata';
import { createPrivateKey, createPublicKey, KeyObject, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
const crypto = webcrypto;
x509.cryptoProvider.set(crypto as unknown as Parameters<typeof x509.cryptoProvider.set>[1]);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A certificate with its key, both PEM. */
export interface PemPair {
  readonly cert: string;
  readonly key: string;
  /** When the certificate stops being valid (ms since epoch). */
  readonly notAfter: number;
}

interface LeafKey {
  readonly keys: CryptoKeyPair;
  readonly pem: string;
  readonly ski: x509.SubjectKeyIdentifierExtension;
  readonly aki: x509.AuthorityKeyIdentifierExtension;
}

function serial(): string {
  // A positive 16-byte serial: the top bit cleared so DER does not read it as negative.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  return Buffer.from(bytes).toString('hex');
}

function keyPem(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * The gateway's runtime CA (C-EGR-4): ECDSA P-256, generated at start (the local backend) or loaded from a Secret
 * (apps/egress-gateway). It signs one short-lived leaf per CONNECT host; sandboxes trust only this CA.
 */
export class RuntimeCa {
  private leafKey?: Promise<LeafKey>;

  private constructor(
    readonly cert: x509.X509Certificate,
    private readonly signingKey: CryptoKey,
    private readonly keyAlgorithm: webcrypto.EcKeyImportParams,
  ) {}

  /** The CA certificate as PEM: what the sandbox's CA bundle variables point at. */
  get certPem(): string {
    return this.cert.toString('pem');
  }

  static async generate(name = 'cli-mcp egress gateway', validDays = 365): Promise<RuntimeCa> {
    const { cert, keys } = await RuntimeCa.selfSigned(name, validDays);
    return new RuntimeCa(cert, keys.privateKey, EC);
  }

  /**
   * A new CA as PEM, key included (PKCS#8): what apps/egress-gateway stores in its Secret so that every replica
   * serves leaves of one CA (C-EGR-4); load it with {@link fromPem}.
   */
  static async generatePem(name = 'cli-mcp egress gateway', validDays = 365): Promise<PemPair> {
    const { cert, keys } = await RuntimeCa.selfSigned(name, validDays);
    return { cert: cert.toString('pem'), key: keyPem(keys.privateKey), notAfter: cert.notAfter.getTime() };
  }

  private static async selfSigned(name: string, validDays: number): Promise<{ cert: x509.X509Certificate; keys: CryptoKeyPair }> {
    const keys = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: `CN=${name}, O=cli-mcp`,
      notBefore: new Date(now - HOUR),
      notAfter: new Date(now + validDays * DAY),
      signingAlgorithm: SIGN,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return { cert, keys };
  }

  /** Loads a CA from PEM (a PKCS#8 P-256 key); refuses anything that is not a P-256 CA able to sign. */
  static async fromPem(certPem: string, keyPem: string): Promise<RuntimeCa> {
    const cert = new x509.X509Certificate(certPem);
    const constraints = cert.getExtension(x509.BasicConstraintsExtension);
    if (!constraints?.ca) throw new Error('the egress CA certificate is not a CA (basicConstraints cA is not set)');
    const der = KeyObject.from(await cert.publicKey.export(EC, ['verify'])).export({ type: 'spki', format: 'der' });
    const privateKey = createPrivateKey(keyPem);
    const publicFromKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
    if (!publicFromKey.equals(der)) throw new Error('the egress CA key does not match its certificate');
    const signingKey = await crypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), EC, false, ['sign']);
    return new RuntimeCa(cert, signingKey, EC);
  }

  /**
   * Mints a leaf for one host (a DNS name or an IP literal): SAN, AKI/SKI, `validMs` long; serverAuth, or clientAuth
   * for a client certificate (a kubeconfig user's, in tests and the fake API server).
   */
  async mintLeaf(host: string, ip: boolean, validMs: number, usage: 'server' | 'client' = 'server'): Promise<PemPair> {
    const { keys, pem, ski, aki } = await (this.leafKey ??= this.makeLeafKey());
    const now = Date.now();
    const notAfter = now + validMs;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: ip ? 'CN=cli-mcp egress leaf' : `CN=${host}`,
      issuer: this.cert.subject,
      notBefore: new Date(now - HOUR),
      notAfter: new Date(notAfter),
      signingAlgorithm: SIGN,
      publicKey: keys.publicKey,
      signingKey: this.signingKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: ip ? 'ip' : 'dns', value: host }]),
        ski,
        aki,
      ],
    });
    return { cert: `${cert.toString('pem')}\n${this.certPem}\n`, key: pem, notAfter };
  }

  /**
   * One key pair for every leaf of this CA (the trick mockttp uses): a mint is then one signature, not a key
   * generation (goal ≤ 5 ms cold). The key never leaves the gateway and only this CA's leaves carry it, which
   * only sandboxes of this gateway trust; a per-host key would protect nothing more.
   */
  private async makeLeafKey(): Promise<LeafKey> {
    const keys = (await crypto.subtle.generateKey(this.keyAlgorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
    return {
      keys,
      pem: keyPem(keys.privateKey),
      ski: await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      // AKI: Python ≥ 3.13's VERIFY_X509_STRICT refuses a leaf without it.
      aki: await x509.AuthorityKeyIdentifierExtension.create(await this.cert.publicKey.export(EC, ['verify'])),
    };
  }
}
