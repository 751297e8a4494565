import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { IfMatch } from '../http/input/if-match.decorator';
import { Location, type SetLocation } from '../http/responses/location.decorator';
import { ApiCreated, ApiIfMatch, ApiPage, ApiResource } from '../http/routing/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/input/resource-id.pipe';
import { ListShipmentsDto } from './dto/list-shipments.dto';
import { ShipmentCreateDto, ShipmentPatchDto } from './dto/shipment-write.dto';
import { ShipmentDto } from './dto/shipment.dto';
import { shipmentInputFrom, shipmentPatchFrom } from './shipment-input';
import { toShipment } from './shipment.mapper';
import { ShipmentsService } from './shipments.service';
import { SHIPMENTS } from './shipments.repository';
import { CommitHook } from '../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator';

/**
 * Shipments look the same in v1 and v2 (no money), so one controller serves both; v2's
 * cursor-only rule is enforced for every v2 collection in one place (http/).
 */
@ApiTags('shipments')
@Controller({ path: 'shipments', version: ['1', '2'] })
export class ShipmentsController {
  constructor(private readonly shipments: ShipmentsService) {}

  @Get()
  @RequirePermission('shipments:read')
  @ApiOperation({
    operationId: 'listShipments',
    summary: "List shipments (a customer: its own orders')",
  })
  @ApiPage(ShipmentDto, () => SHIPMENTS)
  async list(
    @Query() query: ListShipmentsDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<ShipmentDto>> {
    return (await this.shipments.list(principal, query, query)).map(toShipment);
  }

  @IdempotentPost()
  @RequirePermission('shipments:write')
  @ApiOperation({
    operationId: 'createShipment',
    summary: 'Ship a confirmed order: the shipment is label_created and the order shipped',
    description:
      'Creates the shipment and moves its order from confirmed to shipped in one transaction ' +
      '(reserved stock leaves on-hand stock). An `orderId` that names no order is 422 ' +
      '`validation_failed`; an order that is not confirmed is 409 `conflict`.',
  })
  @ApiCreated(ShipmentDto)
  async create(
    @Body() body: ShipmentCreateDto,
    @CurrentPrincipal() principal: Principal,
    @Location() location: SetLocation,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<ShipmentDto> {
    const shipment = await this.shipments.create(principal, shipmentInputFrom(body), commitHook);
    location(shipment.id);
    return toShipment(shipment);
  }

  @Get(':id')
  @RequirePermission('shipments:read')
  @ApiOperation({ operationId: 'getShipment', summary: 'Get a shipment' })
  @ApiResource(ShipmentDto)
  async get(
    @ResourceId('shipment') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ShipmentDto> {
    return toShipment(await this.shipments.get(principal, id));
  }

  @Patch(':id')
  @RequirePermission('shipments:write')
  @ApiOperation({
    operationId: 'updateShipment',
    summary: 'Move a shipment along its status workflow, or change its carrier or tracking number',
    description:
      'label_created → in_transit → delivered, label_created → cancelled; any other move is 409 ' +
      '`invalid_status_transition` and changes nothing. Delivered moves the order to delivered; ' +
      'cancelled returns it to confirmed with its units back on hand and reserved. Carrier and ' +
      'tracking number cannot change once the shipment is delivered or cancelled (409 `conflict`).',
  })
  @ApiIfMatch()
  @ApiResource(ShipmentDto)
  async update(
    @ResourceId('shipment') id: string,
    @Body() body: ShipmentPatchDto,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() versions?: number[],
  ): Promise<ShipmentDto> {
    return toShipment(
      await this.shipments.update(principal, id, shipmentPatchFrom(body), versions),
    );
  }
}
