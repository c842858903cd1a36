import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { MetricsService } from '../metrics/metrics.service.js';
import { OpenRoute } from './boundary/open-route.decorator.js';

/** `/metrics`: Prometheus text from the app's own registry (C-HTTP-3); open (C-HTTP-5): scrapers carry no token. */
@OpenRoute()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const body = await this.metrics.render();
    void reply.header('content-type', this.metrics.contentType).send(body);
  }
}
