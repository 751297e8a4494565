import { Body, Controller, Get, Patch, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, RequirePermission, StaffOnly } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { CUSTOMERS_CANNOT_CHANGE_ORDERS } from './order-problems';
import { etagForVersion } from '../http/etag';
import { IfMatch } from '../http/if-match.decorator';
import { ApiIfMatch, ApiResource } from '../http/openapi.decorators';
import { ResourceId } from '../http/resource-id.pipe';
import { OrderStatusDto } from './dto/order-status.dto';
import { OrderStatusWriteDto } from './dto/order-write.dto';
import { toOrderStatus } from './order-status.mapper';
import { OrdersService } from './orders.service';

const STATUS_ETAG =
  "The order's status and history; `ETag` is the order's version, so `If-Match` works here as on the order.";

/**
 * The status sub-resource holds no money, so one controller serves v1 and v2. Its ETag
 * is the order's version: the same tag guards PATCH /orders/{id} and its status.
 */
@ApiTags('orders')
@Controller({ path: 'orders/:id/status', version: ['1', '2'] })
export class OrderStatusController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @RequirePermission('orders:read')
  @ApiOperation({
    operationId: 'getOrderStatus',
    summary: 'Get the status of an order and its history',
  })
  @ApiResource(OrderStatusDto, STATUS_ETAG)
  async get(
    @ResourceId('order') id: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderStatusDto> {
    const status = await this.orders.statusOf(principal, id);
    void reply.header('ETag', etagForVersion(status.order.version));
    return toOrderStatus(status);
  }

  @Patch()
  @RequirePermission('orders:write')
  @StaffOnly(CUSTOMERS_CANNOT_CHANGE_ORDERS)
  @ApiOperation({
    operationId: 'updateOrderStatus',
    summary: 'Move an order to another status (staff only); cancel releases, ship takes stock',
  })
  @ApiIfMatch()
  @ApiResource(OrderStatusDto, STATUS_ETAG)
  async update(
    @ResourceId('order') id: string,
    @Body() body: OrderStatusWriteDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
    @IfMatch() versions?: number[],
  ): Promise<OrderStatusDto> {
    const status = await this.orders.changeStatus(principal, id, body.status, versions);
    void reply.header('ETag', etagForVersion(status.order.version));
    return toOrderStatus(status);
  }
}
