import { SESSION_ID_LABEL, UNCLAIMABLE_ANNOTATION, authSecretName } from '@cli-mcp/podspec';
import type { Acquisition } from './acquisition.js';
import { errorText } from '@cli-mcp/common';
import { isConflict, isNotFound } from '@cli-mcp/kube';

/**
 * Undo and cleanup steps of an acquisition. All run on `acq.cleanup()` — a FRESH bounded signal, never the
 * caller's — so a caller who gives up cannot leave a half-claimed or half-created sandbox (Go §18.16).
 */

/**
 * Removes OUR session label (fresh timeout). Read first and patch with that resourceVersion as a precondition,
 * so a rollback can never strip the label of another session that claimed the pod meanwhile (e.g. after an
 * aborted patch that never landed); a Conflict from a kubelet status write is retried. `unclaimable` also marks
 * the pod so no claimer takes it again (`UNCLAIMABLE_ANNOTATION`).
 */
export async function rollbackLabel(acq: Acquisition, name: string, unclaimable?: 'token-conflict'): Promise<void> {
  const signal = acq.cleanup();
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const pod = await acq.deps.api.getPod(name, signal);
      if (pod.metadata?.labels?.[SESSION_ID_LABEL] !== acq.sessionId) return;
      try {
        const mark = unclaimable === undefined ? {} : { annotations: { [UNCLAIMABLE_ANNOTATION]: unclaimable } };
        await acq.deps.api.mergePatchPod(name, { metadata: { resourceVersion: pod.metadata.resourceVersion, labels: { [SESSION_ID_LABEL]: null }, ...mark } }, signal);
        return;
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    throw new Error('the pod kept changing');
  } catch (error) {
    if (!isNotFound(error)) acq.deps.logger.warn('rollback: failed to remove session-id label', { session_id: acq.sessionId, pod: name, error: errorText(error) });
  }
}

/** Best-effort delete of the session Secret by its name (fresh timeout, NotFound ignored). */
export async function deleteSessionSecret(acq: Acquisition): Promise<void> {
  const name = authSecretName(acq.deps.cfg.instanceName, acq.sessionId);
  try {
    await acq.deps.api.deleteSecret(name, acq.cleanup());
  } catch (error) {
    if (!isNotFound(error)) acq.deps.logger.warn('cleanup: failed to delete session secret', { session_id: acq.sessionId, secret: name, error: errorText(error) });
  }
}

/** Best-effort delete of a pod we made or claimed and of the session Secret (fresh timeout, NotFound ignored). */
export async function deletePodAndSecret(acq: Acquisition, name: string): Promise<void> {
  try {
    await acq.deps.api.deletePod(name, acq.cleanup());
  } catch (error) {
    if (!isNotFound(error)) acq.deps.logger.warn('cleanup: failed to delete sandbox pod', { session_id: acq.sessionId, pod: name, error: errorText(error) });
  }
  await deleteSessionSecret(acq);
}
