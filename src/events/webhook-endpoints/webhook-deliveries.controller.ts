import { Controller, Get, HttpCode, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../auth/auth.decorators';
import { ApiPage, ApiResource } from '../../http/routing/openapi.decorators';
import { Page } from '../../http/pagination/page';
import { ResourceId } from '../../http/input/resource-id.pipe';
import { ApiDeliveryId, DeliveryId } from './delivery-id.param';
import { ListWebhookDeliveriesDto, WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import { toWebhookDelivery } from './webhook-endpoints.mapper';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WEBHOOK_DELIVERIES } from '../deliveries/webhook-deliveries.repository';
import { CommitHook } from '../../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../../idempotency/idempotent-post.decorator';

const ENDPOINT = 'webhook endpoint';

/** The delivery log of an endpoint: every event sent to it, with every attempt. */
@ApiTags('webhook-endpoints')
@Controller({ path: 'webhook-endpoints/:id/deliveries', version: ['1', '2'] })
export class WebhookDeliveriesController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  @RequirePermission('webhook-endpoints:read')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'The deliveries to an endpoint with their attempts, newest first',
  })
  @ApiPage(WebhookDeliveryDto, () => WEBHOOK_DELIVERIES)
  async list(
    @ResourceId(ENDPOINT) id: string,
    @Query() query: ListWebhookDeliveriesDto,
  ): Promise<Page<WebhookDeliveryDto>> {
    return (await this.endpoints.listDeliveries(id, query, query)).map(toWebhookDelivery);
  }

  @Get(':deliveryId')
  @RequirePermission('webhook-endpoints:read')
  @ApiOperation({
    operationId: 'getWebhookDelivery',
    summary: 'Get one delivery with its attempts',
  })
  @ApiDeliveryId()
  @ApiResource(WebhookDeliveryDto, 'The delivery.')
  async get(
    @ResourceId(ENDPOINT) id: string,
    @DeliveryId() deliveryId: string,
  ): Promise<WebhookDeliveryDto> {
    return toWebhookDelivery(await this.endpoints.getDelivery(id, deliveryId));
  }

  @IdempotentPost(':deliveryId/retries')
  @RequirePermission('webhook-endpoints:write')
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again (failed, dead or any other) with a fresh retry schedule',
    description:
      'The delivery becomes `pending` and a worker attempts it within seconds; if that attempt fails, the whole WEBHOOK_RETRY_SCHEDULE applies again. 409 while a worker is sending it or while the endpoint is disabled.',
  })
  @ApiDeliveryId()
  @HttpCode(202)
  @ApiResponse({
    status: 202,
    type: WebhookDeliveryDto,
    description: 'Scheduled; the delivery as it is now.',
  })
  async retry(
    @ResourceId(ENDPOINT) id: string,
    @DeliveryId() deliveryId: string,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<WebhookDeliveryDto> {
    return toWebhookDelivery(await this.endpoints.retryDelivery(id, deliveryId, commitHook));
  }
}
