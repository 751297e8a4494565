import { Module } from '@nestjs/common';
import { WebhookDeliveryModule } from '../deliveries/webhook-delivery.module';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** /webhook-endpoints and their delivery logs; delivery itself is WebhookDeliveryModule's. */
@Module({
  imports: [WebhookDeliveryModule],
  controllers: [WebhookEndpointsController, WebhookDeliveriesController],
  providers: [WebhookEndpointsService],
})
export class WebhookEndpointsModule {}
