import { describe, expect, it } from 'vitest';
import { SessionError, SessionErrorCode } from '@cli-mcp/session';
import { describeSessionFailure } from './session-failure.js';

describe(describeSessionFailure.name, () => {
  it('maps every SessionErrorCode (exhaustive)', () => {
    for (const code of Object.values(SessionErrorCode)) {
      const failure = describeSessionFailure(new SessionError(code, 'detail'), 's-1');
      expect(failure.reason).toMatch(/^[a-z_]+$/);
      expect(failure.toolText.length).toBeGreaterThan(0);
      expect([400, 500, 503]).toContain(failure.httpStatus);
    }
  });

  it('says "invalid session ID" for a bad id, and 400 "invalid session ID format" over HTTP', () => {
    const failure = describeSessionFailure(new SessionError(SessionErrorCode.InvalidSessionId, 'x'), 'Bad_ID');
    expect(failure.toolText).toBe('invalid session ID "Bad_ID": must be an RFC 1123 label (lowercase letters, digits and "-", 1-63 characters)');
    expect(failure).toMatchObject({ httpStatus: 400, httpMessage: 'invalid session ID format' });
  });

  it.each([
    [SessionErrorCode.SandboxUnavailable, 'resolve pod: claimed pod not ready: timeout', 'sandbox exec failed: resolve pod: claimed pod not ready: timeout'],
    [SessionErrorCode.CapacityExhausted, 'too many sessions (limit 32)', 'sandbox exec failed: too many sessions (limit 32)'],
    [SessionErrorCode.AgentFailure, 'agent request: execute http://127.0.0.1:4000/exec: connection refused', 'sandbox exec failed: agent request: execute http://127.0.0.1:4000/exec: connection refused'],
    [SessionErrorCode.BackendFailure, 'spawn agent: ENOENT', 'sandbox exec failed: spawn agent: ENOENT'],
    [SessionErrorCode.EgressNotEnforced, 'resolve pod: egress gateway not enforced: Service oc-egress has no ready endpoints', 'sandbox exec failed: resolve pod: egress gateway not enforced: Service oc-egress has no ready endpoints'],
    [SessionErrorCode.Cancelled, 'aborted', 'sandbox exec failed: the request was cancelled'],
    [SessionErrorCode.ShuttingDown, 'closing', 'sandbox exec failed: the server is shutting down; retry the command'],
  ])('%s → "sandbox exec failed: <cause>"', (code, message, text) => {
    expect(describeSessionFailure(new SessionError(code, message), 's-1').toolText).toBe(text);
  });

  it('answers DELETE failures with a generic 500 (details only in logs), and 503 while shutting down', () => {
    expect(describeSessionFailure(new SessionError(SessionErrorCode.BackendFailure, 'etcd on fire'), 's')).toMatchObject({
      httpStatus: 500,
      httpMessage: 'failed to end session',
    });
    expect(describeSessionFailure(new SessionError(SessionErrorCode.ShuttingDown, 'x'), 's').httpStatus).toBe(503);
  });

  it('never shows the message or stack of an unexpected error', () => {
    const error = new Error('secret token abc123 in a stack');
    const failure = describeSessionFailure(error, 's');
    expect(failure.toolText).toBe('sandbox exec failed: internal error (see the server logs)');
    expect(JSON.stringify(failure)).not.toContain('abc123');
  });
});
