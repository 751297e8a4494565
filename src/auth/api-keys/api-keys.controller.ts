import { Body, Controller, Delete, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IfMatch } from '../../http/input/if-match.decorator';
import { Location, type SetLocation } from '../../http/responses/location.decorator';
import {
  ApiCreated,
  ApiDeleted,
  ApiIfMatch,
  ApiPage,
  ApiResource,
} from '../../http/routing/openapi.decorators';
import { Page } from '../../http/pagination/page';
import { ResourceId } from '../../http/input/resource-id.pipe';
import { ShownOnce } from '../../idempotency/shown-once.decorator';
import { RequirePermission } from '../auth.decorators';
import { API_KEY_CACHE_TTL_MS } from './api-key-verifier';
import { toApiKey, toApiKeyUsage, toCreatedApiKey } from './api-keys.mapper';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyCreatedDto, ApiKeyDto } from './dto/api-key.dto';
import { ApiKeyUsageDto, ApiKeyUsageQueryDto } from './dto/api-key-usage.dto';
import { ApiKeyCreateDto } from './dto/api-key-write.dto';
import { ListApiKeysDto } from './dto/list-api-keys.dto';
import { API_KEYS } from './api-keys.repository';
import { CommitHook } from '../../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../../idempotency/idempotent-post.decorator';

const REVOKE_DESCRIPTION = `The key is refused (401 \`invalid_token\`) from the moment this answers on the instance that answered, and on every other instance within a few seconds: the revocation is announced to all of them through Redis. A deployment without Redis lets other instances honour a revoked key for at most ${API_KEY_CACHE_TTL_MS / 1000} s, the lifetime of their cache of verified keys. The key is then gone from reads; its usage is kept.`;

const USAGE_DESCRIPTION =
  'Requests authenticated with this key, per hour, over `from` to `to` (default: the last 7 days, at most 31 days). Hours without requests are left out. Counts are written in batches every few seconds, so the current hour may lag a little.';

/** API keys look the same in v1 and v2, so one controller serves both. */
@ApiTags('api-keys')
@Controller({ path: 'api-keys', version: ['1', '2'] })
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @RequirePermission('api-keys:read')
  @ApiOperation({ operationId: 'listApiKeys', summary: 'List API keys (never the keys)' })
  @ApiPage(ApiKeyDto, () => API_KEYS)
  async list(@Query() query: ListApiKeysDto): Promise<Page<ApiKeyDto>> {
    return (await this.keys.list(query, query)).map(toApiKey);
  }

  @IdempotentPost()
  @RequirePermission('api-keys:write')
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key; the answer shows the key, once',
    description:
      'The key is in this answer only, in `key`; only its SHA-256 hash is stored. A `customer` key needs `customerId`, no other role takes one.',
  })
  @ShownOnce('key')
  @ApiCreated(ApiKeyCreatedDto)
  async create(
    @Body() body: ApiKeyCreateDto,
    @Location() location: SetLocation,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<ApiKeyCreatedDto> {
    const { entity, key } = await this.keys.create(body, commitHook);
    location(entity.id);
    return toCreatedApiKey(entity, key);
  }

  @Get(':id')
  @RequirePermission('api-keys:read')
  @ApiOperation({ operationId: 'getApiKey', summary: 'Get an API key (never the key)' })
  @ApiResource(ApiKeyDto)
  async get(@ResourceId('API key') id: string): Promise<ApiKeyDto> {
    return toApiKey(await this.keys.get(id));
  }

  @Delete(':id')
  @RequirePermission('api-keys:write')
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: REVOKE_DESCRIPTION,
  })
  @ApiIfMatch()
  @ApiDeleted('Revoked.')
  async revoke(@ResourceId('API key') id: string, @IfMatch() versions?: number[]): Promise<void> {
    await this.keys.revoke(id, versions);
  }

  @Get(':id/usage')
  @RequirePermission('api-keys:read')
  @ApiOperation({
    operationId: 'getApiKeyUsage',
    summary: 'Requests per hour of an API key',
    description: USAGE_DESCRIPTION,
  })
  @ApiResource(ApiKeyUsageDto, 'Requests per hour.')
  async usage(
    @ResourceId('API key') id: string,
    @Query() query: ApiKeyUsageQueryDto,
  ): Promise<ApiKeyUsageDto> {
    return toApiKeyUsage(await this.keys.usageOf(id, query.from, query.to));
  }
}
