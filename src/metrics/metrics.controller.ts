import { Controller, Get, Header, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../auth/auth.decorators';
import { Metrics } from './metrics';

/**
 * `GET /metrics` for Prometheus (API.md §12): public like the health checks, outside
 * /api (so not rate-limited) and outside the OpenAPI documents.
 */
@ApiExcludeController()
@Public()
@Controller({ path: 'metrics', version: VERSION_NEUTRAL })
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.scrape();
  }
}
