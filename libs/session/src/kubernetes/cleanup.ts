import { SESSION_ID_LABEL, UNCLAIMABLE_ANNOTATION, authSecretName } from '@cli-mcp/podspec';
import type { AcquireContext } from './acquire-context.js';
import { errorText } from '@cli-mcp/common';
import { isConflict, isNotFound } from '@cli-mcp/kube';

/**
 * Undo and cleanup steps of an acquisition. All run on `ctx.cleanup()` — a FRESH bounded signal, never the
 * caller's — so a caller who gives up cannot leave a half-claimed or half-created sandbox (Go §18.16).
 */

/**
 * Removes OUR session label (fresh timeout). Read first and patch with that resourceVersion as a precondition,
 * so a rollback can never strip the label of another session that claimed the pod meanwhile (e.g. after an
 * aborted patch that never landed); a Conflict from a kubelet status write is retried. `unclaimable` also marks
 * the pod so no claimer takes it again (`UNCLAIMABLE_ANNOTATION`).
 */
export async function rollbackLabel(ctx: AcquireContext, name: string, unclaimable?: 'token-conflict'): Promise<void> {
  const signal = ctx.cleanup();
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const pod = await ctx.api.getPod(name, signal);
      if (pod.metadata?.labels?.[SESSION_ID_LABEL] !== ctx.sessionId) return;
      try {
        const mark = unclaimable === undefined ? {} : { annotations: { [UNCLAIMABLE_ANNOTATION]: unclaimable } };
        await ctx.api.mergePatchPod(name, { metadata: { resourceVersion: pod.metadata.resourceVersion, labels: { [SESSION_ID_LABEL]: null }, ...mark } }, signal);
        return;
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    throw new Error('the pod kept changing');
  } catch (error) {
    if (!isNotFound(error)) ctx.logger.warn('rollback: failed to remove session-id label', { session_id: ctx.sessionId, pod: name, error: errorText(error) });
  }
}

/** Best-effort delete of the session Secret by its name (fresh timeout, NotFound ignored). */
export async function deleteSessionSecret(ctx: AcquireContext): Promise<void> {
  const name = authSecretName(ctx.cfg.instanceName, ctx.sessionId);
  try {
    await ctx.api.deleteSecret(name, ctx.cleanup());
  } catch (error) {
    if (!isNotFound(error)) ctx.logger.warn('cleanup: failed to delete session secret', { session_id: ctx.sessionId, secret: name, error: errorText(error) });
  }
}

/** Best-effort delete of a pod we made or claimed and of the session Secret (fresh timeout, NotFound ignored). */
export async function deletePodAndSecret(ctx: AcquireContext, name: string): Promise<void> {
  try {
    await ctx.api.deletePod(name, ctx.cleanup());
  } catch (error) {
    if (!isNotFound(error)) ctx.logger.warn('cleanup: failed to delete sandbox pod', { session_id: ctx.sessionId, pod: name, error: errorText(error) });
  }
  await deleteSessionSecret(ctx);
}
