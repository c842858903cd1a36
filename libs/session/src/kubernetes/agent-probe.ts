import type { V1Pod } from '@kubernetes/client-node';
import { isTerminal, isTerminating } from '@cli-mcp/podspec';
import type { AgentClient } from '@cli-mcp/agent-client';
import { delay, type Clock } from '@cli-mcp/common';
import { agentUrlOf } from './format.js';

/** One direct check of a pod's agent: true when its `/health` answered 200 (what the readiness probe checks). */
export type AgentProbe = (pod: V1Pod, signal: AbortSignal) => Promise<boolean>;

/** `GET /health` on the pod's agent; any failure (refused, timeout, 503 no shell) is "not yet". */
export function agentHealthProbe(agent: Pick<AgentClient, 'health'>, agentPort: number): AgentProbe {
  return (pod, signal) => agent.health(agentUrlOf(pod.status?.podIP ?? '', agentPort), signal).then(() => true, () => false);
}

/**
 * Running, with an IP, every container running and not being deleted: its agent may already listen although the
 * kubelet has not probed it yet (issue 11). A pod that is not probe-able is only ever awaited by watch.
 */
export function isProbeable(pod: V1Pod): boolean {
  const containers = pod.status?.containerStatuses ?? [];
  return (
    pod.status?.phase === 'Running' &&
    typeof pod.status.podIP === 'string' && pod.status.podIP !== '' &&
    containers.length > 0 && containers.every((status) => status.state?.running !== undefined) &&
    !isTerminating(pod) && !isTerminal(pod)
  );
}

// A starting agent listens within a few hundred ms: probe at once, then 5, 10, 20, 25, 25 … ms apart for the first
// 3 s, then every 500 ms (a slow start, a throttled CPU). One attempt at a time, each bounded: a refused
// connection costs one round trip, a black-holed one at most the attempt bound. At most ~130 attempts in the fast
// window, fewer than one readiness probe's worth of work per second afterwards.
const FIRST_GAP_MS = 5;
const FAST_GAP_CAP_MS = 25;
const FAST_WINDOW_MS = 3_000;
const SLOW_GAP_MS = 500;
export const PROBE_ATTEMPT_TIMEOUT_MS = 1_000;

/** Probes `pod` until its agent answers (→ true) or `signal` aborts (→ false). Never throws. */
export async function probeUntilAnswered(clock: Clock, probe: AgentProbe, pod: V1Pod, signal: AbortSignal): Promise<boolean> {
  const started = clock.now();
  let gap = FIRST_GAP_MS;
  while (!signal.aborted) {
    if (await probeOnce(clock, probe, pod, signal)) return !signal.aborted;
    const fast = clock.now() - started < FAST_WINDOW_MS;
    if (!(await delay(clock, fast ? gap : SLOW_GAP_MS, signal))) return false;
    gap = Math.min(gap * 2, FAST_GAP_CAP_MS);
  }
  return false;
}

/** One probe, bounded to {@link PROBE_ATTEMPT_TIMEOUT_MS}: false on any failure or abort. Never throws. */
export async function probeOnce(clock: Clock, probe: AgentProbe, pod: V1Pod, signal: AbortSignal): Promise<boolean> {
  const bounded = new AbortController();
  const cancelTimer = clock.schedule(PROBE_ATTEMPT_TIMEOUT_MS, () => bounded.abort());
  const onAbort = (): void => bounded.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await probe(pod, bounded.signal);
  } catch {
    return false;
  } finally {
    cancelTimer();
    signal.removeEventListener('abort', onAbort);
  }
}
