import { classifyAgentFailure } from '../agent-failure.js';
import { delay, type Clock } from '@cli-mcp/common';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { SandboxEgress } from './egress/local-egress.port.js';
import type { LocalAgentPort } from './local-backend.options.js';
import { type AgentProcess, type LaunchSpec, type ProcessLauncher } from './process-launcher.js';

export interface StartedAgent {
  process: AgentProcess;
  /** `http://127.0.0.1:<port>` or `unix:<socket path>` (agent-endpoint.ts). */
  url: string;
  /** With `--local-network proxy`: the sandbox's gateway socket, assigned to the session that adopts it. */
  egress?: SandboxEgress;
}

export interface StartOptions {
  clock: Clock;
  readyTimeoutMs: number;
  signal: AbortSignal;
  /** The agent URL for its ready line, undefined when the line is not what this launch expects. */
  urlFor: (readyLine: string) => string | undefined;
  /**
   * More that must be up before the sandbox counts as ready (its network, C-SEC-2), started once the process
   * is; its rejection message becomes the start failure.
   */
  alongside?: (child: AgentProcess) => Promise<unknown>;
}

/**
 * Starts a sandbox process and waits for its ready line (the port, or `unix`), bounded by `readyTimeoutMs` and the caller's
 * signal. A process that does not become ready is killed: nothing is left behind.
 */
export async function startAgent(launcher: ProcessLauncher, spec: LaunchSpec, options: StartOptions): Promise<StartedAgent> {
  const child = launcher.launch(spec);
  const timeout = new AbortController();
  const onAbort = (): void => timeout.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const timedOut = delay(options.clock, options.readyTimeoutMs, timeout.signal).then((fired) => ({ kind: 'timeout' as const, fired }));
  try {
    const alongside = (options.alongside?.(child) ?? Promise.resolve()).then(
      () => undefined,
      (error: unknown) => ({ kind: 'broken' as const, reason: error instanceof Error ? error.message : String(error) }),
    );
    const outcome = await Promise.race([
      Promise.all([
        child.readyLine.then(
          (line) => ({ kind: 'ready' as const, line }),
          (error: Error) => ({ kind: 'failed' as const, reason: error.message }),
        ),
        alongside,
      ]).then(([agent, other]) => (agent.kind === 'failed' ? agent : other ?? agent)),
      timedOut,
    ]);
    if (outcome.kind === 'ready') {
      const url = options.urlFor(outcome.line);
      if (url !== undefined) return { process: child, url };
      throw unavailable(`agent reported an invalid endpoint ${JSON.stringify(outcome.line.slice(0, 32))}`);
    }
    if (outcome.kind === 'failed') {
      const detail = lastLineOf(child.stderrTail());
      const message = `start sandbox: agent ${outcome.reason} before it was ready${detail}`;
      throw detail.startsWith(': bwrap: ') ? new SandboxSetupFailed(message) : unavailable(message.slice('start sandbox: '.length));
    }
    if (outcome.kind === 'broken') throw unavailable(outcome.reason);
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

/**
 * bubblewrap itself failed while building the sandbox, before the agent ran (e.g. its loopback setup in a new
 * network namespace, which fails now and then under load): nothing of the session ran, so a new try is safe.
 */
export class SandboxSetupFailed extends SessionError {
  constructor(message: string) {
    super(SessionErrorCode.SandboxUnavailable, message);
  }
}

/** The sandbox's last stderr line (bubblewrap's own errors are one line), bounded; never the agent's token. */
function lastLineOf(stderr: string): string {
  const line = stderr.trim().split('\n').at(-1)?.trim() ?? '';
  return line === '' || line.startsWith('{') ? '' : `: ${line.slice(0, 200)}`;
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
