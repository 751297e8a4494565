import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { IfMatch } from '../http/if-match.decorator';
import { Location, type SetLocation } from '../http/location.decorator';
import { ApiCreated, ApiIfMatch, ApiPage, ApiResource } from '../http/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/resource-id.pipe';
import { ListOrdersV2Dto } from './dto/list-orders.dto';
import { OrderCreateDto, OrderPatchDto } from './dto/order-write.dto';
import { OrderV2Dto } from './dto/order.dto';
import { OrdersService } from './orders.service';
import { orderInputFrom, orderPatchFrom } from './order-input';
import { toOrderV2 } from './orders.v2.mapper';

@ApiTags('orders')
@Controller({ path: 'orders', version: '2' })
export class OrdersV2Controller {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @RequirePermission('orders:read')
  @ApiOperation({ operationId: 'listOrders', summary: 'List orders (a customer: its own)' })
  @ApiPage(OrderV2Dto)
  async list(
    @Query() query: ListOrdersV2Dto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<OrderV2Dto>> {
    return (await this.orders.list(principal, query, query)).map(toOrderV2);
  }

  @Post()
  @RequirePermission('orders:write')
  @ApiOperation({
    operationId: 'createOrder',
    summary: 'Place an order: prices from the catalog, stock reserved for every line or none',
  })
  @ApiCreated(OrderV2Dto)
  async create(
    @Body() body: OrderCreateDto,
    @CurrentPrincipal() principal: Principal,
    @Location() location: SetLocation,
  ): Promise<OrderV2Dto> {
    const order = await this.orders.create(principal, orderInputFrom(body));
    location(order.id);
    return toOrderV2(order);
  }

  @Get(':id')
  @RequirePermission('orders:read')
  @ApiOperation({ operationId: 'getOrder', summary: 'Get an order' })
  @ApiResource(OrderV2Dto)
  async get(
    @ResourceId('order') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<OrderV2Dto> {
    return toOrderV2(await this.orders.get(principal, id));
  }

  @Patch(':id')
  @RequirePermission('orders:write')
  @ApiOperation({
    operationId: 'updateOrder',
    summary: 'Change the notes or shipping address of a pending order (staff only)',
  })
  @ApiIfMatch()
  @ApiResource(OrderV2Dto)
  async update(
    @ResourceId('order') id: string,
    @Body() body: OrderPatchDto,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() versions?: number[],
  ): Promise<OrderV2Dto> {
    return toOrderV2(await this.orders.update(principal, id, orderPatchFrom(body), versions));
  }
}
