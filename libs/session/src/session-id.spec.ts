import { describe, expect, it } from 'vitest';
import { SessionError, SessionErrorCode } from './session-error.js';
import { assertValidSessionId, isValidSessionId } from './session-id.js';

// Go TestValidateSessionID (§17.1).
const VALID = ['abc123', 'inv-abc-123', 'a', 'a'.repeat(63), '0', 'a-b'];
const INVALID = ['a'.repeat(64), '-abc', 'abc-', 'ABC', 'abc_123', 'abc.123', '', ' abc', 'abc\n', 'ä'];

describe('assertValidSessionId', () => {
  it.each(VALID)('accepts %j', (id) => {
    expect(isValidSessionId(id)).toBe(true);
    expect(() => assertValidSessionId(id)).not.toThrow();
  });

  it.each(INVALID)('rejects %j with the Go catalogue message', (id) => {
    expect(isValidSessionId(id)).toBe(false);
    let error: unknown;
    try {
      assertValidSessionId(id);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe(SessionErrorCode.InvalidSessionId);
    expect((error as SessionError).message).toBe(`invalid session ID ${JSON.stringify(id)}: must match RFC 1123 DNS label format`);
  });
});
