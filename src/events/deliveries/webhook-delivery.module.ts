import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MetricsModule } from '../../metrics/metrics.module';
import { WebhookEndpointEntity } from '../webhook-endpoints/webhook-endpoint.entity';
import { WebhookEndpointsRepository } from '../webhook-endpoints/webhook-endpoints.repository';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookWorker } from './webhook-worker';

/**
 * What delivering webhooks needs, and nothing of HTTP: the API imports it (through the
 * webhook-endpoints module) and so does the worker process (src/worker.ts). The worker
 * starts polling at boot when WORKER is on.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookDeliveryEntity, WebhookAttemptEntity]),
    MetricsModule,
  ],
  providers: [WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhookWorker],
  exports: [WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhookWorker],
})
export class WebhookDeliveryModule {}
