import { isIP } from 'node:net';
import { RuntimeCa, type PemPair } from '@cli-mcp/egress';

const DAY_MS = 24 * 3_600_000;
/** Long enough for a `dev:cluster` left running for weeks; every start mints new ones anyway. */
const LEAF_VALID_MS = 90 * DAY_MS;

/**
 * The fake API server's PKI, generated at start like a fresh kubeadm cluster's (ECDSA P-256, through the egress
 * gateway's `RuntimeCa`, the project's one certificate minter):
 * - a serving CA and the server's certificate for its listen address — what a kubeconfig's
 *   `certificate-authority-data` carries;
 * - a separate client CA (`--client-ca-file`) that signs client certificates: CN = user name. Kept apart from the
 *   serving CA because RuntimeCa gives every leaf of one CA the same key, and a client must never hold the
 *   server's key. Client certificates therefore share one key with each other: model distrustful users with tokens.
 */
export class ClusterTls {
  private constructor(
    private readonly servingCa: RuntimeCa,
    private readonly clientCa: RuntimeCa,
    /** The server's certificate chain and key (PEM). */
    readonly serving: PemPair,
  ) {}

  /** Generates both CAs and a serving certificate whose SAN is `host` (an IP literal or a DNS name). */
  static async generate(host: string): Promise<ClusterTls> {
    const [servingCa, clientCa] = await Promise.all([RuntimeCa.generate('fake-kube serving CA'), RuntimeCa.generate('fake-kube client CA')]);
    const serving = await servingCa.mintLeaf(host, isIP(host) !== 0, LEAF_VALID_MS, 'server');
    return new ClusterTls(servingCa, clientCa, serving);
  }

  /** The serving CA certificate (PEM): what clients must trust. */
  get caPem(): string {
    return this.servingCa.certPem;
  }

  /** The CA whose client certificates the server accepts (PEM). */
  get clientCaPem(): string {
    return this.clientCa.certPem;
  }

  /** A client certificate (chain + key, PEM) the server maps to user `username`. */
  issueClientCertificate(username: string, validMs = LEAF_VALID_MS): Promise<PemPair> {
    return this.clientCa.mintLeaf(username, false, validMs, 'client');
  }
}
