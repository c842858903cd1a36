import { classifyAgentFailure } from '../agent-failure.js';
import { delay, type Clock } from '../clock.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { LocalAgentPort } from './local-backend.options.js';
import { type AgentProcess, type LaunchSpec, type ProcessLauncher } from './process-launcher.js';

export interface StartedAgent {
  process: AgentProcess;
  port: number;
}

export interface StartOptions {
  clock: Clock;
  readyTimeoutMs: number;
  signal: AbortSignal;
}

/**
 * Starts a sandbox process and waits for its ready line (the port), bounded by `readyTimeoutMs` and the caller's
 * signal. A process that does not become ready is killed: nothing is left behind.
 */
export async function startAgent(launcher: ProcessLauncher, spec: LaunchSpec, options: StartOptions): Promise<StartedAgent> {
  const child = launcher.launch(spec);
  const timeout = new AbortController();
  const onAbort = (): void => timeout.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const timedOut = delay(options.clock, options.readyTimeoutMs, timeout.signal).then((fired) => ({ kind: 'timeout' as const, fired }));
  try {
    const outcome = await Promise.race([
      child.readyLine.then(
        (line) => ({ kind: 'ready' as const, line }),
        (error: Error) => ({ kind: 'failed' as const, reason: error.message }),
      ),
      timedOut,
    ]);
    if (outcome.kind === 'ready') {
      const port = Number(outcome.line);
      if (Number.isInteger(port) && port > 0 && port < 65_536) return { process: child, port };
      throw unavailable(`agent reported an invalid port ${JSON.stringify(outcome.line.slice(0, 32))}`);
    }
    if (outcome.kind === 'failed') throw unavailable(`agent ${outcome.reason} before it was ready`);
    if (!outcome.fired || options.signal.aborted) throw new SessionError(SessionErrorCode.Cancelled, 'request cancelled by the client');
    throw unavailable(`agent not ready within ${options.readyTimeoutMs} ms`);
  } catch (error) {
    child.kill('SIGKILL');
    await child.exited;
    throw error;
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    timeout.abort();
  }
}

/**
 * SIGTERM (the agent cancels its command and kills its shell's process group, C-AG-10), then SIGKILL to the
 * process group after `graceMs`. Resolves once the process has exited.
 */
export async function stopAgent(child: AgentProcess, clock: Clock, graceMs: number): Promise<void> {
  if (child.hasExited) return;
  child.kill('SIGTERM');
  const stopWaiting = new AbortController();
  const graceOver = delay(clock, graceMs, stopWaiting.signal);
  const exitedInTime = await Promise.race([child.exited.then(() => true), graceOver.then(() => false)]);
  stopWaiting.abort();
  if (!exitedInTime) child.kill('SIGKILL');
  await child.exited;
}

function unavailable(reason: string): SessionError {
  return new SessionError(SessionErrorCode.SandboxUnavailable, `start sandbox: ${reason}`);
}

/** A loopback agent that refuses connections is dying or dead; a slow one keeps its shell state. */
export async function agentResponds(agent: LocalAgentPort, agentUrl: string, clock: Clock, timeoutMs: number): Promise<boolean> {
  const timeout = new AbortController();
  const cancel = clock.schedule(timeoutMs, () => timeout.abort());
  try {
    await agent.health(agentUrl, timeout.signal);
    return true;
  } catch (error) {
    return classifyAgentFailure(error) !== 'not-delivered';
  } finally {
    cancel();
  }
}
