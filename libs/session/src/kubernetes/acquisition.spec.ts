/**
 * The per-call `Acquisition` itself: how its signal follows the caller and the backend (first cause wins, the
 * caller's signal let go when the call is over), its bounded and fresh signals, its rollback after a DELETE, and the
 * replica's registry of acquisitions in flight.
 * The order of the steps and each step's rules are covered through the backend (kubernetes-backend.*.spec.ts).
 */
import { authSecretName, sessionPodName } from '@cli-mcp/podspec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionErrorCode } from '../session-error.js';
import { Acquisition, InFlightAcquisitions, type AcquisitionDeps } from './acquisition.js';
import { silentLogger } from './kubernetes-backend.options.js';
import { SESSION, TOKEN } from './testing/backend-fixture.js';
import { FakeClock, StrictAssignAgent, StrictKubeApi, testPodConfig } from './testing/strict-kube-api.js';

describe(Acquisition.name, () => {
  let api: StrictKubeApi;
  let stamped: string[];
  beforeEach(() => {
    api = new StrictKubeApi();
    stamped = [];
  });
  afterEach(() => {
    expect(api.unexpected).toEqual([]);
  });

  function deps(overrides: Partial<AcquisitionDeps> = {}): AcquisitionDeps {
    return {
      api,
      agent: new StrictAssignAgent(),
      cfg: testPodConfig(),
      clock: new FakeClock(),
      wallClock: () => new Date(0),
      logger: silentLogger,
      toucher: { stamped: (sessionId) => stamped.push(sessionId) },
      readyTimeoutMs: 60_000,
      requestTimeoutMs: 15_000,
      cleanupTimeoutMs: 10_000,
      ...overrides,
    };
  }

  const start = (caller: AbortSignal, overrides: Partial<AcquisitionDeps> = {}): Acquisition => new Acquisition(deps(overrides), SESSION, TOKEN, caller);

  it('follows the caller: a caller that already gave up aborts it at once, as the caller', () => {
    const acquisition = start(AbortSignal.abort());
    expect(acquisition.signal.aborted).toBe(true);
    expect(acquisition.abortCause()).toBe('caller');
    expect(() => acquisition.throwIfAborted()).toThrow(expect.objectContaining({ code: SessionErrorCode.Cancelled }));
  });

  it('is not aborted while nobody aborts it; a later caller abort reaches it', () => {
    const caller = new AbortController();
    const acquisition = start(caller.signal);
    expect(acquisition.abortCause()).toBeUndefined();
    expect(() => acquisition.throwIfAborted()).not.toThrow();
    caller.abort();
    expect(acquisition.abortCause()).toBe('caller');
  });

  it('the first cause wins: a DELETE after the caller gave up is reported as the cancel, and rolls nothing back', async () => {
    const caller = new AbortController();
    const acquisition = start(caller.signal);
    caller.abort();
    acquisition.abort('released');
    expect(acquisition.abortCause()).toBe('caller');
    await acquisition.rollback();
    expect(api.calls).toHaveLength(0);
  });

  it('maps the backend causes to their errors: DELETE → sandbox unavailable, shutdown → shutting down', () => {
    const released = start(new AbortController().signal);
    released.abort('released');
    expect(() => released.throwIfAborted()).toThrow(expect.objectContaining({ code: SessionErrorCode.SandboxUnavailable }));
    const stopped = start(new AbortController().signal);
    stopped.abort('shutdown');
    expect(() => stopped.throwIfAborted()).toThrow(expect.objectContaining({ code: SessionErrorCode.ShuttingDown }));
  });

  it('lets go of the caller when the call is over: a later caller abort no longer reaches it', () => {
    const caller = new AbortController();
    const acquisition = start(caller.signal);
    acquisition.dispose();
    caller.abort();
    expect(acquisition.signal.aborted).toBe(false);
  });

  it('request() ends with the acquisition; cleanup() is fresh and does not', () => {
    const acquisition = start(new AbortController().signal);
    const request = acquisition.request();
    const cleanup = acquisition.cleanup();
    expect(request.aborted).toBe(false);
    acquisition.abort('caller');
    expect(request.aborted).toBe(true);
    expect(cleanup.aborted).toBe(false);
    expect(acquisition.cleanup().aborted).toBe(false);
  });

  it('request() is also bounded by the per-request timeout', async () => {
    const acquisition = start(new AbortController().signal, { requestTimeoutMs: 1 });
    const request = acquisition.request();
    await new Promise((resolve) => request.addEventListener('abort', resolve, { once: true }));
    expect(acquisition.signal.aborted).toBe(false);
  });

  it('rollback() after a DELETE removes the session pod and Secret, on fresh signals', async () => {
    const acquisition = start(new AbortController().signal);
    api.on('deletePod', async () => undefined);
    api.on('deleteSecret', async () => undefined);
    acquisition.abort('released');
    await acquisition.rollback();
    const [[podName, podSignal]] = api.callsOf('deletePod');
    const [[secretName, secretSignal]] = api.callsOf('deleteSecret');
    expect(podName).toBe(sessionPodName('oc', SESSION));
    expect(secretName).toBe(authSecretName('oc', SESSION));
    expect([podSignal.aborted, secretSignal.aborted]).toEqual([false, false]);
  });

  it('rollback() without a DELETE (failure, caller cancel, shutdown) touches nothing', async () => {
    const failed = start(new AbortController().signal);
    await failed.rollback();
    const stopped = start(new AbortController().signal);
    stopped.abort('shutdown');
    await stopped.rollback();
    expect(api.calls).toHaveLength(0);
  });

  it('stamped() tells the toucher the session was stamped', () => {
    start(new AbortController().signal).stamped();
    expect(stamped).toEqual([SESSION]);
  });

  it('in flight: DELETE aborts only its session\'s acquisitions, shutdown all; a finished one is no longer reached', () => {
    const inFlight = new InFlightAcquisitions();
    const ours = [start(new AbortController().signal), start(new AbortController().signal)];
    const other = new Acquisition(deps(), 'other-session', TOKEN, new AbortController().signal);
    const finished = start(new AbortController().signal);
    for (const acquisition of [...ours, other, finished]) inFlight.add(acquisition);
    inFlight.delete(finished);
    inFlight.abort('released', SESSION);
    expect(ours.map((a) => a.abortCause())).toEqual(['released', 'released']);
    expect(other.abortCause()).toBeUndefined();
    inFlight.abort('shutdown');
    expect(other.abortCause()).toBe('shutdown');
    expect(finished.signal.aborted).toBe(false);
  });
});
