import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { IfMatch } from '../http/if-match.decorator';
import { Location, type SetLocation } from '../http/location.decorator';
import { ApiCreated, ApiIfMatch, ApiPage, ApiResource } from '../http/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/resource-id.pipe';
import { ListOrdersV1Dto } from './dto/list-orders.dto';
import { OrderCreateDto, OrderPatchDto } from './dto/order-write.dto';
import { OrderV1Dto } from './dto/order.dto';
import { OrdersService } from './orders.service';
import { orderInputFrom, orderPatchFrom } from './order-input';
import { toOrderV1 } from './orders.v1.mapper';

@ApiTags('orders')
@Controller({ path: 'orders', version: '1' })
export class OrdersV1Controller {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @RequirePermission('orders:read')
  @ApiOperation({ operationId: 'listOrders', summary: 'List orders (a customer: its own)' })
  @ApiPage(OrderV1Dto)
  async list(
    @Query() query: ListOrdersV1Dto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<OrderV1Dto>> {
    return (await this.orders.list(principal, query, query)).map(toOrderV1);
  }

  @Post()
  @RequirePermission('orders:write')
  @ApiOperation({
    operationId: 'createOrder',
    summary: 'Place an order: prices from the catalog, stock reserved for every line or none',
  })
  @ApiCreated(OrderV1Dto)
  async create(
    @Body() body: OrderCreateDto,
    @CurrentPrincipal() principal: Principal,
    @Location() location: SetLocation,
  ): Promise<OrderV1Dto> {
    const order = await this.orders.create(principal, orderInputFrom(body));
    location(order.id);
    return toOrderV1(order);
  }

  @Get(':id')
  @RequirePermission('orders:read')
  @ApiOperation({ operationId: 'getOrder', summary: 'Get an order' })
  @ApiResource(OrderV1Dto)
  async get(
    @ResourceId('order') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<OrderV1Dto> {
    return toOrderV1(await this.orders.get(principal, id));
  }

  @Patch(':id')
  @RequirePermission('orders:write')
  @ApiOperation({
    operationId: 'updateOrder',
    summary: 'Change the notes or shipping address of a pending order (staff only)',
  })
  @ApiIfMatch()
  @ApiResource(OrderV1Dto)
  async update(
    @ResourceId('order') id: string,
    @Body() body: OrderPatchDto,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() versions?: number[],
  ): Promise<OrderV1Dto> {
    return toOrderV1(await this.orders.update(principal, id, orderPatchFrom(body), versions));
  }
}
