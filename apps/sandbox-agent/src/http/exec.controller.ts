import type { ExecService } from '../exec/exec-service.js';
import { ok, type AgentReply, type RouteRequest } from './agent-route.js';
import { parseTargetRequestId, parseExecInput } from './request-bodies.js';

/** `POST /exec`, `/cancel` and `/output` (C-AG-1, C-AG-4). The bearer check ran before, on the matched route. */
export class ExecController {
  constructor(private readonly exec: ExecService) {}

  async run(request: RouteRequest): Promise<AgentReply> {
    const ticket = this.exec.submit(parseExecInput(request.body));
    // C-AG-4: the client going away cancels its command (or drops it from the queue).
    const release = (): void => ticket.release();
    if (request.clientGone.aborted) release();
    else request.clientGone.addEventListener('abort', release, { once: true });
    try {
      return ok(await ticket.result);
    } finally {
      request.clientGone.removeEventListener('abort', release);
    }
  }

  cancel(request: RouteRequest): AgentReply {
    return ok(this.exec.cancel(parseTargetRequestId(request.body)));
  }

  /** The running command's latest output, for the server's progress notifications (C-MCP-10). */
  output(request: RouteRequest): AgentReply {
    return ok(this.exec.output(parseTargetRequestId(request.body)));
  }
}
