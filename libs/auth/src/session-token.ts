import { nodeCrypto } from './node-crypto.js';

/**
 * Session token = lowercase hex of HMAC-SHA256(key bytes, session id as UTF-8) — 64 chars, identical on every
 * replica, so nothing has to be stored (C-AUTH-1, Go §8).
 */
export function deriveSessionToken(key: Buffer, sessionId: string): string {
  return nodeCrypto().createHmac('sha256', key).update(sessionId, 'utf8').digest('hex');
}

/** Constant-time comparison of two tokens; unequal lengths are rejected without leaking where they differ. */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  if (a.length !== b.length) {
    // Compare against itself so the work done does not depend on the secret's content.
    nodeCrypto().timingSafeEqual(b, b);
    return false;
  }
  return nodeCrypto().timingSafeEqual(a, b);
}

/**
 * Extracts the token of an `Authorization` header value: exactly `Bearer <token>` (case-sensitive scheme, one
 * space, token not trimmed), as the Go agent accepted. Anything else → undefined.
 */
export function parseBearer(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return undefined;
  const token = header.slice('Bearer '.length);
  return token.length > 0 ? token : undefined;
}
