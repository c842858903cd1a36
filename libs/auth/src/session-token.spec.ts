import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { deriveSessionToken, parseBearer, tokensEqual } from './session-token.js';

/** Independent reference: openssl computes the same HMAC from the same key bytes (C-AUTH-1). */
function opensslHmac(key: string, message: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', key], { input: message }).toString();
  return out.trim().split(/\s+/).at(-1) ?? '';
}

describe(deriveSessionToken.name, () => {
  it.each([
    ['my-hmac-key', 'inv-abc-123'],
    ['secret', 'a'],
    ['0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'x'.repeat(63)],
  ])('matches openssl for key %j and session %j', (key, session) => {
    expect(deriveSessionToken(Buffer.from(key), session)).toBe(opensslHmac(key, session));
  });

  it('is 64 lowercase hex chars, deterministic, and differs by session and by key', () => {
    const key = Buffer.from('k1');
    const token = deriveSessionToken(key, 's1');
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(deriveSessionToken(Buffer.from('k1'), 's1')).toBe(token);
    expect(deriveSessionToken(key, 's2')).not.toBe(token);
    expect(deriveSessionToken(Buffer.from('k2'), 's1')).not.toBe(token);
  });
});

describe(tokensEqual.name, () => {
  it('accepts only the identical token', () => {
    const token = 'a'.repeat(64);
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(`${'a'.repeat(63)}b`, token)).toBe(false);
    expect(tokensEqual('a'.repeat(63), token)).toBe(false);
    expect(tokensEqual('', token)).toBe(false);
  });
});

describe(parseBearer.name, () => {
  it.each([
    ['Bearer tok-123', 'tok-123'],
    ['Bearer  spaced', ' spaced'],
  ])('extracts the token of %j', (header, token) => {
    expect(parseBearer(header)).toBe(token);
  });

  it.each([undefined, '', 'Bearer ', 'bearer tok', 'Basic dXNlcjpwYXNz', 'Bearertok', ['Bearer a', 'Bearer b']])(
    'rejects %j',
    (header) => {
      expect(parseBearer(header as string | string[] | undefined)).toBeUndefined();
    },
  );
});
