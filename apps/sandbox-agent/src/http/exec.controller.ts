import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { CancelResponse, ExecResponse, OutputResponse } from '@cli-mcp/agent-client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ExecService } from '../exec/exec-service.js';
import { parseTargetRequestId, parseExecInput } from './request-bodies.js';

/** `POST /exec`, `/cancel` and `/output` (C-AG-1, C-AG-4). Bearer checks ran earlier, in the onRequest hook. */
@Controller()
export class ExecController {
  constructor(private readonly exec: ExecService) {}

  @Post('exec')
  @HttpCode(200)
  async run(@Body() body: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<ExecResponse> {
    const ticket = this.exec.submit(parseExecInput(body));
    // C-AG-4: the client going away cancels its command. Watch the raw connection — Fastify's reply lifecycle
    // only reports on replies it sends. A socket already gone (closed while the body was read) counts too.
    const response = reply.raw;
    const onClose = (): void => {
      if (!response.writableFinished) ticket.release();
    };
    response.once('close', onClose);
    if (request.raw.socket.destroyed) ticket.release();
    try {
      return await ticket.result;
    } finally {
      response.off('close', onClose);
    }
  }

  @Post('cancel')
  @HttpCode(200)
  cancel(@Body() body: unknown): CancelResponse {
    return this.exec.cancel(parseTargetRequestId(body));
  }

  /** The running command's latest output, for the server's progress notifications (C-MCP-10). */
  @Post('output')
  @HttpCode(200)
  output(@Body() body: unknown): OutputResponse {
    return this.exec.output(parseTargetRequestId(body));
  }
}
