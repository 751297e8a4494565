import { Module } from '@nestjs/common';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';

/**
 * The metrics registry, for whoever records (the HTTP hooks, the webhook worker). A
 * worker process (src/worker.ts) holds it too, without serving it.
 */
@Module({
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}

/** `GET /metrics`, in the API only. */
@Module({
  imports: [MetricsModule],
  controllers: [MetricsController],
})
export class MetricsEndpointModule {}
