import { AGENT_OUTPUT_PEEK_BYTES, clampTimeout, type CancelResponse, type OutputResponse } from '@cli-mcp/agent-client';
import type { AgentConfig } from '../config/agent-config.js';
import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import type { ExecInput } from '../http/request-bodies.js';
import type { AgentLog } from '../logging/agent-logger.js';
import { ShellStartError } from '../shell/process/bash-process.js';
import { queuedResponse } from '../shell/jobs/yield-responses.js';
import { cancelledBeforeStart } from '../shell/output/command-result.js';
import type { ShellEngine } from '../shell/shell-engine.js';
import { ExecQueue, type ExecTicket } from './exec-queue.js';

/** The wire's one timeout rule (libs/agent-client `clampTimeout`, C-MCP-3), in milliseconds; fractions are kept. */
export function effectiveTimeoutMs(timeout: number | undefined, defaultSeconds: number, maxSeconds: number): number {
  return Math.round(clampTimeout(timeout, { defaultSeconds, maxSeconds }) * 1000);
}

/** What the HTTP layer calls: clamps the timeout and hands the command to the one-at-a-time queue (C-AG-9). */
export class ExecService {
  private readonly queue: ExecQueue;

  constructor(private readonly engine: ShellEngine, private readonly config: AgentConfig, private readonly log: AgentLog) {
    this.queue = new ExecQueue(async (job, signal, respond) => {
      // C-AG-14: every result names the deadline that was actually applied.
      const timeout = { timeout_seconds: job.timeoutMs / 1000 };
      try {
        return { ...(await engine.run(job, signal, (early) => respond({ ...early, ...timeout }))), ...timeout };
      } catch (err) {
        if (err instanceof ShellStartError) throw new AgentError(AgentErrorCode.ShellUnavailable, err.message);
        throw err;
      }
    }, cancelledBeforeStart, (job) => ({ ...queuedResponse(engine.peek(AGENT_OUTPUT_PEEK_BYTES)), timeout_seconds: job.timeoutMs / 1000 }));
  }

  get busy(): boolean {
    return this.queue.busy;
  }

  submit(input: ExecInput): ExecTicket {
    const timeoutMs = effectiveTimeoutMs(input.timeout, this.config.defaultTimeoutSeconds, this.config.maxTimeoutSeconds);
    // C-MCP-11: the yield point counts from when the call arrived, queued time included (the client's budget runs).
    const yieldAt = input.yieldAfter === undefined || input.tty ? undefined : Date.now() + Math.round(input.yieldAfter * 1000);
    const ticket = this.queue.submit(
      { command: input.command, timeoutMs, tty: input.tty, ...(yieldAt === undefined ? {} : { yieldAt }) },
      { requestId: input.requestId, idempotencyKey: input.idempotencyKey },
    );
    // Ids and sizes only, never the command text (C-AUTH-2); tests use this record to order concurrent requests.
    this.log.debug({ request_id: input.requestId, waiting: this.queue.waiting, timeout_ms: timeoutMs }, 'command queued');
    return ticket;
  }

  cancel(requestId: string | undefined): CancelResponse {
    const outcome = this.queue.cancel(requestId);
    this.log.debug({ request_id: requestId, outcome, running: this.queue.busy }, 'cancel');
    return outcome === 'waiting' ? { cancelled: false, waiting: true } : { cancelled: outcome === 'cancelled' };
  }

  /** `/output`: the running command's latest output, when it is the one named (C-MCP-10 progress). */
  output(requestId: string | undefined): OutputResponse {
    const peek = this.queue.isRunning(requestId) ? this.engine.peek(AGENT_OUTPUT_PEEK_BYTES) : undefined;
    if (!peek) return { running: false };
    return { running: true, stdout: peek.stdout.text, stderr: peek.stderr.text, stdout_bytes: peek.stdout.bytes, stderr_bytes: peek.stderr.bytes };
  }

  cancelAll(): void {
    this.queue.cancelAll();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}
