import {
  applyDecorators,
  Body,
  Controller,
  Get,
  Inject,
  Patch,
  Res,
  type Type,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, RequirePermission, StaffOnly } from '../../auth/auth.decorators';
import type { Permission } from '../../auth/permissions';
import type { Principal } from '../../auth/principal';
import {
  type StatusBody,
  type StatusOwner,
  type StatusWithHistory,
  toStatusBody,
} from '../../common/status-history';
import { etagForVersion } from '../responses/etag';
import { IfMatch } from '../input/if-match.decorator';
import { ApiIfMatch, ApiResource } from './openapi.decorators';
import { ResourceId } from '../input/resource-id.pipe';
import { ParamType } from './versioned-controller';

/** What differs between the `/{id}/status` sub-resources of orders and invoices. */
export interface StatusResource<S extends string> {
  /** the resource, as messages and operation ids name it: `order` */
  resource: string;
  /** its collection, the path and the OpenAPI tag: `orders` */
  collection: string;
  /** the service that reads and moves the status (OrdersService) */
  owner: Type<StatusOwner<S>>;
  dto: Type<StatusBody<S>>;
  writeDto: Type<{ status: S }>;
  read: Permission;
  write: Permission;
  /** why customers may not change the status, if they may not (@StaffOnly) */
  staffOnly?: string;
  /** what the PATCH does, for its OpenAPI summary */
  changeSummary: string;
}

/**
 * `GET` and `PATCH /{collection}/{id}/status`. The sub-resource holds no money, so one
 * controller serves v1 and v2. Its ETag is the resource's version: the same tag guards
 * the resource's own PATCH and its status.
 */
export function statusController<S extends string>(spec: StatusResource<S>) {
  const { resource, collection } = spec;
  const Name = resource[0].toUpperCase() + resource.slice(1);
  const etag = `The ${resource}'s status and history; \`ETag\` is the ${resource}'s version, so \`If-Match\` works here as on the ${resource}.`;

  @ApiTags(collection)
  @Controller({ path: `${collection}/:id/status`, version: ['1', '2'] })
  class StatusController {
    constructor(@Inject(spec.owner) private readonly owner: StatusOwner<S>) {}

    @Get()
    @RequirePermission(spec.read)
    @ApiOperation({
      operationId: `get${Name}Status`,
      summary: `Get the status of an ${resource} and its history`,
    })
    @ApiResource(spec.dto, etag)
    async get(
      @ResourceId(resource) id: string,
      @CurrentPrincipal() principal: Principal,
      @Res({ passthrough: true }) reply: FastifyReply,
    ): Promise<StatusBody<S>> {
      return answer(reply, await this.owner.statusOf(principal, id));
    }

    @Patch()
    @RequirePermission(spec.write)
    @applyDecorators(...(spec.staffOnly === undefined ? [] : [StaffOnly(spec.staffOnly)]))
    @ApiOperation({ operationId: `update${Name}Status`, summary: spec.changeSummary })
    @ApiIfMatch()
    @ApiResource(spec.dto, etag)
    async update(
      @ResourceId(resource) id: string,
      @Body() @ParamType(spec.writeDto) body: { status: S },
      @CurrentPrincipal() principal: Principal,
      @Res({ passthrough: true }) reply: FastifyReply,
      @IfMatch() versions?: number[],
    ): Promise<StatusBody<S>> {
      return answer(reply, await this.owner.changeStatus(principal, id, body.status, versions));
    }
  }
  return StatusController;
}

function answer<S extends string>(
  reply: FastifyReply,
  status: StatusWithHistory<S>,
): StatusBody<S> {
  void reply.header('ETag', etagForVersion(status.current.version));
  return toStatusBody(status);
}
