import { Body, Controller, Delete, Get, HttpCode, Patch, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../auth/auth.decorators';
import { IfMatch } from '../../http/input/if-match.decorator';
import { Location, type SetLocation } from '../../http/responses/location.decorator';
import {
  ApiCreated,
  ApiIfMatch,
  ApiPage,
  ApiResource,
} from '../../http/routing/openapi.decorators';
import { OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { Page } from '../../http/pagination/page';
import { ResourceId } from '../../http/input/resource-id.pipe';
import { ShownOnce } from '../../idempotency/shown-once.decorator';
import { WebhookEndpointDto, WebhookEndpointWithSecretDto } from './dto/webhook-endpoint.dto';
import {
  WebhookEndpointCreateDto,
  WebhookEndpointPatchDto,
} from './dto/webhook-endpoint-write.dto';
import { toWebhookEndpoint, toWebhookEndpointWithSecret } from './webhook-endpoints.mapper';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WEBHOOK_ENDPOINTS } from './webhook-endpoints.repository';
import { CommitHook } from '../../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../../idempotency/idempotent-post.decorator';

const RESOURCE = 'webhook endpoint';

/** Subscribers to events (API.md §10). No money, so one controller serves v1 and v2. */
@ApiTags('webhook-endpoints')
@Controller({ path: 'webhook-endpoints', version: ['1', '2'] })
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  @RequirePermission('webhook-endpoints:read')
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: 'List webhook endpoints' })
  @ApiPage(WebhookEndpointDto, () => WEBHOOK_ENDPOINTS)
  async list(@Query() query: OffsetListQueryDto): Promise<Page<WebhookEndpointDto>> {
    return (await this.endpoints.list(query)).map((e) => toWebhookEndpoint(e));
  }

  @IdempotentPost()
  @RequirePermission('webhook-endpoints:write')
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint; the answer shows its signing secret, once',
    description:
      'The URL must be https in production, and its host must resolve to public addresses only (not loopback, private, link-local, carrier-grade NAT, multicast or unspecified ones) unless the service runs with WEBHOOK_ALLOW_PRIVATE_URLS; otherwise 422 naming `url`. Events recorded from now on are delivered.',
  })
  @ShownOnce('secret')
  @ApiCreated(WebhookEndpointWithSecretDto)
  async create(
    @Body() body: WebhookEndpointCreateDto,
    @Location() location: SetLocation,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<WebhookEndpointWithSecretDto> {
    const endpoint = await this.endpoints.create(body, commitHook);
    location(endpoint.id);
    return toWebhookEndpointWithSecret(endpoint);
  }

  @Get(':id')
  @RequirePermission('webhook-endpoints:read')
  @ApiOperation({
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint (never its secret)',
  })
  @ApiResource(WebhookEndpointDto)
  async get(@ResourceId(RESOURCE) id: string): Promise<WebhookEndpointDto> {
    return toWebhookEndpoint(await this.endpoints.get(id));
  }

  @Patch(':id')
  @RequirePermission('webhook-endpoints:write')
  @ApiOperation({
    operationId: 'updateWebhookEndpoint',
    summary: 'Change the URL, subscribed events or description, or disable or enable an endpoint',
  })
  @ApiIfMatch()
  @ApiResource(WebhookEndpointDto)
  async update(
    @ResourceId(RESOURCE) id: string,
    @Body() body: WebhookEndpointPatchDto,
    @IfMatch() versions?: number[],
  ): Promise<WebhookEndpointDto> {
    return toWebhookEndpoint(await this.endpoints.update(id, body, versions));
  }

  @Delete(':id')
  @RequirePermission('webhook-endpoints:write')
  @ApiOperation({
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint with its delivery log',
  })
  @ApiIfMatch()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted; nothing more is delivered to it.' })
  async remove(@ResourceId(RESOURCE) id: string, @IfMatch() versions?: number[]): Promise<void> {
    await this.endpoints.remove(id, versions);
  }

  @IdempotentPost(':id/secret-rotations')
  @RequirePermission('webhook-endpoints:write')
  @ApiOperation({
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Replace the signing secret; the answer shows the new one, once',
    description:
      'For 24 h (`previousSecretExpiresAt`) every delivery is signed with both the new and the previous secret: `webhook-signature` carries two space-separated `v1,` entries, so receivers that verify with either secret keep working while they switch. A second rotation within that time drops the oldest secret.',
  })
  @ShownOnce('secret')
  @HttpCode(200)
  @ApiResponse({
    status: 200,
    type: WebhookEndpointWithSecretDto,
    description: 'The endpoint with its new secret; `ETag` is its version.',
  })
  async rotateSecret(
    @ResourceId(RESOURCE) id: string,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<WebhookEndpointWithSecretDto> {
    return toWebhookEndpointWithSecret(await this.endpoints.rotateSecret(id, commitHook));
  }
}
