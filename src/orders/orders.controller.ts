import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission, StaffOnly } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { CUSTOMERS_CANNOT_CHANGE_ORDERS } from './order-problems';
import { IfMatch } from '../http/input/if-match.decorator';
import { Location, type SetLocation } from '../http/responses/location.decorator';
import { ApiCreated, ApiIfMatch, ApiPage, ApiResource } from '../http/routing/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/input/resource-id.pipe';
import { ParamType, type ResourceVersion } from '../http/routing/versioned-controller';
import { ListOrdersV1Dto, ListOrdersV2Dto } from './dto/list-orders.dto';
import { OrderCreateDto, OrderPatchDto } from './dto/order-write.dto';
import { OrderV1Dto, OrderV2Dto } from './dto/order.dto';
import { orderInputFrom, orderPatchFrom } from './order-input';
import type { OrderEntity } from './order.entity';
import { OrdersService } from './orders.service';
import { toOrderV1, toOrderV2 } from './orders.mapper';
import { ORDERS } from './orders.repository';
import { CommitHook } from '../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator';

type OrdersVersion<Dto> = ResourceVersion<OrderEntity, Dto, ListOrdersV1Dto | ListOrdersV2Dto>;

/** `/orders` in one API version; the versions differ only in what `api` gives. */
function ordersController<Dto>(api: OrdersVersion<Dto>) {
  @ApiTags('orders')
  @Controller({ path: 'orders', version: api.version })
  class OrdersController {
    constructor(private readonly orders: OrdersService) {}

    @Get()
    @RequirePermission('orders:read')
    @ApiOperation({ operationId: 'listOrders', summary: 'List orders (a customer: its own)' })
    @ApiPage(api.dto, () => ORDERS)
    async list(
      @Query() @ParamType(api.listQuery) query: ListOrdersV1Dto | ListOrdersV2Dto,
      @CurrentPrincipal() principal: Principal,
    ): Promise<Page<Dto>> {
      return (await this.orders.list(principal, query, query)).map(api.toDto);
    }

    @IdempotentPost()
    @RequirePermission('orders:write')
    @ApiOperation({
      operationId: 'createOrder',
      summary: 'Place an order: prices from the catalog, stock reserved for every line or none',
    })
    @ApiCreated(api.dto)
    async create(
      @Body() body: OrderCreateDto,
      @CurrentPrincipal() principal: Principal,
      @Location() location: SetLocation,
      @CommitHook() commitHook: CommitHook | undefined,
    ): Promise<Dto> {
      const order = await this.orders.create(principal, orderInputFrom(body), commitHook);
      location(order.id);
      return api.toDto(order);
    }

    @Get(':id')
    @RequirePermission('orders:read')
    @ApiOperation({ operationId: 'getOrder', summary: 'Get an order' })
    @ApiResource(api.dto)
    async get(
      @ResourceId('order') id: string,
      @CurrentPrincipal() principal: Principal,
    ): Promise<Dto> {
      return api.toDto(await this.orders.get(principal, id));
    }

    @Patch(':id')
    @RequirePermission('orders:write')
    @StaffOnly(CUSTOMERS_CANNOT_CHANGE_ORDERS)
    @ApiOperation({
      operationId: 'updateOrder',
      summary: 'Change the notes or shipping address of a pending order (staff only)',
    })
    @ApiIfMatch()
    @ApiResource(api.dto)
    async update(
      @ResourceId('order') id: string,
      @Body() body: OrderPatchDto,
      @IfMatch() versions?: number[],
    ): Promise<Dto> {
      return api.toDto(await this.orders.update(id, orderPatchFrom(body), versions));
    }
  }
  return OrdersController;
}

export class OrdersV1Controller extends ordersController({
  version: '1',
  dto: OrderV1Dto,
  listQuery: ListOrdersV1Dto,
  toDto: toOrderV1,
}) {}

export class OrdersV2Controller extends ordersController({
  version: '2',
  dto: OrderV2Dto,
  listQuery: ListOrdersV2Dto,
  toDto: toOrderV2,
}) {}
