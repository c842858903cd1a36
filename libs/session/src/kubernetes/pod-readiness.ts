import type { V1Pod } from '@kubernetes/client-node';
import { isTerminal, isTerminating, isServing } from '@cli-mcp/podspec';
import { delay, type Clock, errorText } from '@cli-mcp/common';
import { isProbeable, probeUntilAnswered, type AgentProbe } from './agent-probe.js';
import { goDuration, podName } from './format.js';
import { type KubeApi, type PodWatchEnd, KubeError, isNotFound } from '@cli-mcp/kube';

export type PodWaitFailure = 'timeout' | 'deleted' | 'disowned' | 'failed' | 'terminating' | 'blocked' | 'api';

/** The pod itself did not become ready (as opposed to the caller giving up). Message = Go catalogue text. */
export class PodWaitError extends Error {
  constructor(
    readonly kind: PodWaitFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PodWaitError';
  }
}

export interface PodReadinessDeps {
  api: KubeApi;
  clock: Clock;
}

export interface PodWaitOptions {
  /** False once the pod stops belonging to the waiter (e.g. a sibling rolled its claim back) → `disowned`. */
  stillOwned?: (pod: V1Pod) => boolean;
  /** Why the pod can never become ready as it is (e.g. its Secret is gone) → `blocked` at once, not at the deadline. */
  blockedBy?: (pod: V1Pod) => string | undefined;
  /**
   * Ask the agent itself once the pod is probe-able (Running, IP, containers running): its `/health` answering
   * is what the kubelet's readiness probe checks, without waiting for the probe's next period (issue 11).
   */
  probe?: AgentProbe;
}

// A watch that ends this soon without progress is retried after a growing pause, so a failing API server
// (500s, cut streams) cannot turn the wait into a hot loop. Not polling: a healthy watch is never re-armed early.
const QUICK_END_MS = 1_000;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

/**
 * Waits until `pod` is Ready with an IP, by WATCHING that one pod (C-K8S-5) from its resourceVersion — not by
 * 2 s polling as Go did (Go §3.6). A closed stream or 410 Expired → one GET and a fresh watch. Bounded by
 * `timeoutMs` (→ `pod "<name>" not ready within 1m0s`) and by `signal` (→ rejects with the abort; the caller
 * decides what an abort means). A pod that is deleted, finishes or starts terminating fails at once.
 * With `options.probe`, an agent that answers its `/health` first ends the wait too (with the pod as it was
 * when probing began); the watch keeps deciding failures meanwhile.
 */
export function waitForPodReady(
  deps: PodReadinessDeps,
  pod: V1Pod,
  timeoutMs: number,
  signal: AbortSignal,
  options: PodWaitOptions = {},
): Promise<V1Pod> {
  const name = podName(pod);
  const onDeleted = (): PodWaitError => new PodWaitError('deleted', `pod "${name}" was deleted`);
  return withDeadline(deps, timeoutMs, signal, `pod "${name}" not ready within ${goDuration(timeoutMs)}`, (bounded) =>
    options.probe ? readyOrAnswering(deps, pod, options, options.probe, onDeleted, bounded) : watchUntil(deps, pod, (p) => readiness(p, options), onDeleted, bounded),
  );
}

/**
 * The watch and, from the first probe-able state on, the agent's own `/health` (issue 11: kubelet readiness is
 * quantised by the probe period; a 10 s period would make the first command wait up to 10 s for an agent that
 * answered long before). Whichever comes first wins; deletion, termination and the other failures still come
 * from the watch, and the deadline and `signal` bound both.
 */
async function readyOrAnswering(deps: PodReadinessDeps, initial: V1Pod, options: PodWaitOptions, probe: AgentProbe, onDeleted: () => PodWaitError, signal: AbortSignal): Promise<V1Pod> {
  const answered = new AbortController();
  const scope = AbortSignal.any([signal, answered.signal]);
  let probed: V1Pod | undefined;
  const startProbing = (pod: V1Pod): void => {
    probed = pod;
    void probeUntilAnswered(deps.clock, probe, pod, scope).then((ok) => ok && answered.abort());
  };
  const verdictOf = (pod: V1Pod): Verdict => readiness(pod, options) ?? (probed === undefined && isProbeable(pod) ? 'probe' : undefined);
  try {
    return await watchUntil(deps, initial, verdictOf, onDeleted, scope, startProbing);
  } catch (error) {
    if (answered.signal.aborted && !signal.aborted && probed) return probed;
    throw error;
  } finally {
    answered.abort(); // the watch decided: stop probing
  }
}

/** Waits until the pod is gone (DELETED event or NotFound), by watch; `timeoutMs` → `still terminating`. */
export async function waitForPodDeletion(deps: PodReadinessDeps, pod: V1Pod, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const name = podName(pod);
  const gone = new PodWaitError('deleted', `pod "${name}" was deleted`);
  try {
    await withDeadline(deps, timeoutMs, signal, `pod "${name}" still terminating after ${goDuration(timeoutMs)}`, (bounded) =>
      watchUntil(deps, pod, () => undefined, () => gone, bounded),
    );
  } catch (error) {
    if (error !== gone) throw error;
  }
}

async function withDeadline<T>(deps: PodReadinessDeps, timeoutMs: number, signal: AbortSignal, message: string, run: (bounded: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  const cancelDeadline = deps.clock.schedule(timeoutMs, () => deadline.abort(new PodWaitError('timeout', message)));
  try {
    return await run(AbortSignal.any([signal, deadline.signal]));
  } catch (error) {
    if (deadline.signal.aborted && !signal.aborted) throw deadline.signal.reason as PodWaitError;
    throw error;
  } finally {
    cancelDeadline();
  }
}

/** `'probe'`: not ready, but the agent may be asked directly (only with a probe, once). */
type Verdict = 'done' | 'probe' | PodWaitError | undefined;

async function watchUntil(
  deps: PodReadinessDeps,
  initial: V1Pod,
  verdictOf: (pod: V1Pod) => Verdict,
  onDeleted: () => PodWaitError,
  signal: AbortSignal,
  onProbeable: (pod: V1Pod) => void = () => undefined,
): Promise<V1Pod> {
  const name = podName(initial);
  let pod = initial;
  let version = pod.metadata?.resourceVersion;
  let backoff = FIRST_BACKOFF_MS;
  for (;;) {
    const verdict = verdictOf(pod);
    if (verdict === 'done') return pod;
    if (verdict === 'probe') onProbeable(pod);
    else if (verdict) throw verdict;
    const started = deps.clock.now();
    let end: PodWatchEnd;
    try {
      end = await deps.api.watchPodUntil(name, version, (p) => decides(verdictOf(p), p, onProbeable), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      // The watch request itself failed (500/429/transport): fall through to GET + re-watch, paced.
      end = { type: 'closed', error };
    }
    if (end.type === 'matched') {
      pod = end.pod;
      version = pod.metadata?.resourceVersion;
      backoff = FIRST_BACKOFF_MS;
      continue;
    }
    if (end.type === 'deleted') throw onDeleted();
    if (deps.clock.now() - started < QUICK_END_MS) {
      if (!(await delay(deps.clock, backoff, signal))) throw signal.reason;
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    } else {
      backoff = FIRST_BACKOFF_MS;
    }
    pod = await reread(deps, name, onDeleted, signal);
    version = pod.metadata?.resourceVersion;
  }
}

/** Whether a watched pod ends the watch; a probe-able one starts the probe instead and the same watch goes on. */
function decides(verdict: Verdict, pod: V1Pod, onProbeable: (pod: V1Pod) => void): boolean {
  if (verdict !== 'probe') return verdict !== undefined;
  onProbeable(pod);
  return false;
}

/** `'done'` (ready), a failure, or undefined while the pod is still on its way. */
function readiness(pod: V1Pod, options: PodWaitOptions): Verdict {
  const name = podName(pod);
  if (options.stillOwned && !options.stillOwned(pod)) return new PodWaitError('disowned', `pod "${name}" no longer belongs to the session`);
  if (isServing(pod)) return 'done';
  if (isTerminating(pod)) return new PodWaitError('terminating', `pod "${name}" is being deleted`);
  if (isTerminal(pod)) return new PodWaitError('failed', `pod "${name}" finished with phase ${pod.status?.phase}`);
  const blocked = options.blockedBy?.(pod);
  if (blocked !== undefined) return new PodWaitError('blocked', blocked);
  return undefined;
}

/** GET after a watch ended; transient API failures (transport, 429, 5xx) are retried until the deadline. */
async function reread(deps: PodReadinessDeps, name: string, onDeleted: () => PodWaitError, signal: AbortSignal): Promise<V1Pod> {
  let backoff = FIRST_BACKOFF_MS;
  for (;;) {
    try {
      return await deps.api.getPod(name, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      if (isNotFound(error)) throw onDeleted();
      if (!isTransient(error)) throw new PodWaitError('api', `get pod "${name}": ${errorText(error)}`);
      if (!(await delay(deps.clock, backoff, signal))) throw signal.reason;
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}

function isTransient(error: unknown): boolean {
  if (!(error instanceof KubeError)) return false;
  return error.status === undefined || error.status === 429 || error.status >= 500;
}
