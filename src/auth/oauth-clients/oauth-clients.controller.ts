import { Body, Controller, Delete, Get, Patch, Query } from '@nestjs/common';
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
import { ListOAuthClientsDto } from './dto/list-oauth-clients.dto';
import { OAuthClientCreatedDto, OAuthClientDto } from './dto/oauth-client.dto';
import { OAuthClientCreateDto, OAuthClientPatchDto } from './dto/oauth-client-write.dto';
import { toCreatedOAuthClient, toOAuthClient } from './oauth-clients.mapper';
import { OAuthClientsService } from './oauth-clients.service';
import { OAUTH_CLIENTS } from './oauth-clients.repository';
import { CommitHook } from '../../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../../idempotency/idempotent-post.decorator';

const CREATE_DESCRIPTION =
  'Registers a client of the built-in authorization server (`/oauth`). A public client (`public: true`) has no secret and uses the authorization code flow with PKCE `S256`; a confidential one gets `clientSecret` in this answer only (only its SHA-256 hash is stored) and may also use client credentials. Redirect URIs are compared exactly.';

const DELETE_DESCRIPTION =
  'Deletes the client with its authorization codes, refresh tokens and grants. Access tokens already issued are JWTs: they keep working until they expire (15 minutes at most).';

/** OAuth clients look the same in v1 and v2, so one controller serves both. */
@ApiTags('oauth-clients')
@Controller({ path: 'oauth-clients', version: ['1', '2'] })
export class OAuthClientsController {
  constructor(private readonly clients: OAuthClientsService) {}

  @Get()
  @RequirePermission('oauth-clients:read')
  @ApiOperation({ operationId: 'listOAuthClients', summary: 'List OAuth clients' })
  @ApiPage(OAuthClientDto, () => OAUTH_CLIENTS)
  async list(@Query() query: ListOAuthClientsDto): Promise<Page<OAuthClientDto>> {
    return (await this.clients.list(query)).map(toOAuthClient);
  }

  @IdempotentPost()
  @RequirePermission('oauth-clients:write')
  @ApiOperation({
    operationId: 'createOAuthClient',
    summary: 'Register an OAuth client; a confidential one gets its secret, once',
    description: CREATE_DESCRIPTION,
  })
  @ShownOnce('clientSecret')
  @ApiCreated(OAuthClientCreatedDto)
  async create(
    @Body() body: OAuthClientCreateDto,
    @Location() location: SetLocation,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<OAuthClientCreatedDto> {
    const { entity, secret } = await this.clients.create(body, commitHook);
    location(entity.id);
    return toCreatedOAuthClient(entity, secret);
  }

  @Get(':id')
  @RequirePermission('oauth-clients:read')
  @ApiOperation({ operationId: 'getOAuthClient', summary: 'Get an OAuth client' })
  @ApiResource(OAuthClientDto)
  async get(@ResourceId('OAuth client') id: string): Promise<OAuthClientDto> {
    return toOAuthClient(await this.clients.get(id));
  }

  @Patch(':id')
  @RequirePermission('oauth-clients:write')
  @ApiOperation({
    operationId: 'updateOAuthClient',
    summary: 'Change some fields of an OAuth client',
  })
  @ApiIfMatch()
  @ApiResource(OAuthClientDto)
  async update(
    @ResourceId('OAuth client') id: string,
    @Body() body: OAuthClientPatchDto,
    @IfMatch() versions?: number[],
  ): Promise<OAuthClientDto> {
    return toOAuthClient(await this.clients.update(id, body, versions));
  }

  @Delete(':id')
  @RequirePermission('oauth-clients:write')
  @ApiOperation({
    operationId: 'deleteOAuthClient',
    summary: 'Delete an OAuth client',
    description: DELETE_DESCRIPTION,
  })
  @ApiIfMatch()
  @ApiDeleted()
  async remove(
    @ResourceId('OAuth client') id: string,
    @IfMatch() versions?: number[],
  ): Promise<void> {
    await this.clients.remove(id, versions);
  }
}
