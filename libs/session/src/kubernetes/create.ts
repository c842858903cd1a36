import type { V1Pod } from '@kubernetes/client-node';
import { buildAuthSecret, buildSessionPod, isTerminal, isTerminating, sessionPodName, readyBy } from '@cli-mcp/podspec';
import { SessionErrorCode } from '../session-error.js';
import { resolveError, shouldCleanupAfterWaitFailure, type Acquired } from './acquire-context.js';
import type { Acquisition } from './acquisition.js';
import { deletePodAndSecret, deleteSessionSecret } from './cleanup.js';
import { errorText } from '@cli-mcp/common';
import { isAlreadyExists, isNotFound, isQuotaExceeded } from '@cli-mcp/kube';
import { PodWaitError } from './pod-readiness.js';

const STAGE = 'create sandbox pod';

/**
 * On-demand creation (C-K8S-4, Go §3.5): the session Secret, then the pod (it reads the token from the Secret),
 * then readiness by watch. Deterministic names make concurrent creators converge: Secret AlreadyExists is
 * tolerated, pod AlreadyExists → rediscover and wait. A pre-existing Secret means a sibling may be claiming
 * (label first, Secret second), so we look once more before creating a second pod (Go §4.4).
 */
export async function createSessionPod(acq: Acquisition, hadEarlierPod: boolean): Promise<Acquired> {
  let secretExisted = false;
  try {
    await acq.deps.api.createSecret(buildAuthSecret(acq.deps.cfg, acq.sessionId, acq.token), acq.request());
  } catch (error) {
    acq.throwIfAborted();
    if (!isAlreadyExists(error)) throw apiError(`${STAGE}: create auth secret`, error);
    secretExisted = true;
  }
  if (secretExisted) {
    const again = await acq.discover('discover pod');
    if (again.found) return again.found;
  }
  // A Secret with no live pod: the session's earlier sandbox is gone (deleted behind our back, evicted).
  const hadEarlierSandbox = hadEarlierPod || secretExisted;
  return createAndAwait(acq, { secretExisted, hadEarlierSandbox, replaced: false });
}

interface CreateState {
  secretExisted: boolean;
  hadEarlierSandbox: boolean;
  /** A finished/terminating pod of the same name was already replaced once. */
  replaced: boolean;
}

async function createAndAwait(acq: Acquisition, state: CreateState): Promise<Acquired> {
  const name = sessionPodName(acq.deps.cfg.instanceName, acq.sessionId);
  let created: V1Pod;
  try {
    created = await acq.deps.api.createPod(buildSessionPod(acq.podConfig(), acq.deps.cfg.instanceName, acq.sessionId, acq.deps.wallClock()), acq.request());
  } catch (error) {
    if (isAlreadyExists(error) && !acq.signal.aborted) return afterPodConflict(acq, state);
    // Only a Secret we made is ours to remove: an existing one may serve a sibling's pod.
    if (!state.secretExisted) await deleteSessionSecret(acq);
    acq.throwIfAborted();
    throw apiError(`${STAGE}: create pod`, error);
  }
  acq.stamped();
  const started = acq.deps.clock.now();
  try {
    const pod = await acq.awaitReady(created, { blockedBy: acq.secretGone() });
    acq.deps.metrics?.sandboxReady(Math.max(0, acq.deps.clock.now() - started) / 1000);
    acq.deps.logger.info('created sandbox pod', { session_id: acq.sessionId, pod: name, recreated: state.hadEarlierSandbox, ready_by: readyBy(pod) });
    return { pod, path: 'create', hadEarlierSandbox: state.hadEarlierSandbox };
  } catch (error) {
    if (shouldCleanupAfterWaitFailure(error, acq.abortCause())) await deletePodAndSecret(acq, name);
    acq.throwIfAborted();
    const code = error instanceof PodWaitError ? SessionErrorCode.SandboxUnavailable : SessionErrorCode.BackendFailure;
    throw resolveError(code, `${STAGE}: wait for pod ready: ${errorText(error)}`, error);
  }
}

/**
 * Pod AlreadyExists: a sibling created it (rediscover and wait), or the name is held by a finished or
 * terminating pod of an earlier sandbox that discovery skips (Go §18.14: Go failed for up to 60 s). Such a pod
 * is removed — deleted if finished, awaited if terminating — and the create retried once.
 */
async function afterPodConflict(acq: Acquisition, state: CreateState): Promise<Acquired> {
  const stage = 'discover pod after conflict';
  const again = await acq.discover(stage);
  if (again.found) return again.found;
  const name = sessionPodName(acq.deps.cfg.instanceName, acq.sessionId);
  const notDiscoverable = (): never => {
    throw resolveError(SessionErrorCode.SandboxUnavailable, `pod exists but not discoverable for session "${acq.sessionId}"`);
  };
  if (state.replaced) notDiscoverable();
  let existing: V1Pod | undefined;
  try {
    existing = await acq.deps.api.getPod(name, acq.request());
  } catch (error) {
    acq.throwIfAborted();
    if (!isNotFound(error)) throw apiError(`${stage}: get pod "${name}"`, error);
  }
  if (existing && !isTerminal(existing) && !isTerminating(existing)) notDiscoverable();
  if (existing) await awaitRemoval(acq, existing);
  // A finished pod is an earlier sandbox of the session; a terminating one is usually a DELETE's (not a recreate).
  const finished = existing !== undefined && isTerminal(existing);
  return createAndAwait(acq, { ...state, hadEarlierSandbox: state.hadEarlierSandbox || finished, replaced: true });
}

/** Deletes a finished pod (ours: it carries our deterministic name) and waits for it to be gone, by watch. */
async function awaitRemoval(acq: Acquisition, pod: V1Pod): Promise<void> {
  const name = pod.metadata?.name ?? '';
  try {
    if (!isTerminating(pod)) await acq.deps.api.deletePod(name, acq.request());
    await acq.awaitDeletion(pod);
  } catch (error) {
    if (isNotFound(error)) return;
    acq.throwIfAborted();
    throw resolveError(SessionErrorCode.SandboxUnavailable, `${STAGE}: previous pod: ${errorText(error)}`, error);
  }
}

function apiError(detail: string, error: unknown): Error {
  const code = isQuotaExceeded(error) ? SessionErrorCode.CapacityExhausted : SessionErrorCode.BackendFailure;
  return resolveError(code, `${detail}: ${errorText(error)}`, error);
}
