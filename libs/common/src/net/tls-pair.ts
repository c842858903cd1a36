import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { errorText } from '../error-text.js';

/**
 * Why `cert` (a PEM chain) and `key` do not serve TLS together, or undefined when they do: the one check of the
 * server's `--tls-cert-file`/`--tls-key-file` and of the operator's `cli-mcp-<name>-tls` Secret (so a pair the
 * operator accepts is one the server starts with).
 */
export function tlsPairProblem(cert: string, key: string): string | undefined {
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) return 'the certificate file holds no PEM certificate';
  try {
    createSecureContext({ cert, key });
    // node:tls takes a key of another certificate without a word (OpenSSL drops the mismatched key, and every
    // handshake then fails): the pair is checked explicitly.
    if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) return 'the key is not the key of the certificate (key values mismatch)';
    return undefined;
  } catch (error) {
    return errorText(error);
  }
}
