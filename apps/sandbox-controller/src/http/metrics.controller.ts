import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { METRICS_REGISTRY } from '../tokens.js';

/** `/metrics`: Prometheus text from the app's own registry (C-CTL-4). */
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get()
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const body = await this.registry.metrics();
    void reply.header('content-type', this.registry.contentType).send(body);
  }
}
