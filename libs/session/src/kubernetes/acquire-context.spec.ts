import { describe, expect, it } from 'vitest';
import { SessionErrorCode } from '../session-error.js';
import { abortedAcquisition, shouldCleanupAfterWaitFailure } from './acquire-context.js';
import { PodWaitError } from './pod-readiness.js';

// Go TestShouldCleanupAfterWaitFailure: nil/Canceled/DeadlineExceeded (also wrapped) → false; timeout/other → true.
// Here "Canceled/DeadlineExceeded" is the CALLER's signal (cancel or deadline) ending the wait.
describe('shouldCleanupAfterWaitFailure', () => {
  const timeout = new PodWaitError('timeout', 'pod "p" not ready within 1m0s');

  it('never cleans up without an error', () => {
    expect(shouldCleanupAfterWaitFailure(undefined, undefined)).toBe(false);
    expect(shouldCleanupAfterWaitFailure(null, undefined)).toBe(false);
  });

  it('leaves the pod when the caller gave up (cancel or deadline): a sibling may be waiting on it', () => {
    expect(shouldCleanupAfterWaitFailure(new Error('request aborted'), 'caller')).toBe(false);
    expect(shouldCleanupAfterWaitFailure(new Error('wrapped', { cause: new Error('request aborted') }), 'caller')).toBe(false);
  });

  it('leaves the pod when the server is shutting down', () => {
    expect(shouldCleanupAfterWaitFailure(new Error('request aborted'), 'shutdown')).toBe(false);
  });

  it('cleans up after a readiness timeout or any other failure of the pod itself', () => {
    expect(shouldCleanupAfterWaitFailure(timeout, undefined)).toBe(true);
    expect(shouldCleanupAfterWaitFailure(new Error('get pod "p": boom'), undefined)).toBe(true);
  });

  it('cleans up when the session was deleted during the wait', () => {
    expect(shouldCleanupAfterWaitFailure(new Error('request aborted'), 'released')).toBe(true);
  });
});

describe('abortedAcquisition', () => {
  it('maps each abort cause to its error code', () => {
    expect(abortedAcquisition('caller').code).toBe(SessionErrorCode.Cancelled);
    expect(abortedAcquisition(undefined).code).toBe(SessionErrorCode.Cancelled);
    expect(abortedAcquisition('shutdown').code).toBe(SessionErrorCode.ShuttingDown);
    expect(abortedAcquisition('released').code).toBe(SessionErrorCode.SandboxUnavailable);
  });
});
