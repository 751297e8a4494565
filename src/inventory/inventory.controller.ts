import { Body, Controller, Get, Patch, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/auth.decorators';
import { IfMatch } from '../http/input/if-match.decorator';
import { Location, type SetLocation } from '../http/responses/location.decorator';
import { ApiCreated, ApiIfMatch, ApiPage, ApiResource } from '../http/routing/openapi.decorators';
import { OffsetListQueryDto } from '../http/pagination/list-query.dto';
import { Page } from '../http/pagination/page';
import { ResourceId, SkuParam } from '../http/input/resource-id.pipe';
import {
  AdjustmentDto,
  AdjustmentWriteDto,
  InventoryItemDto,
  InventoryPatchDto,
  InventoryWriteDto,
  ListInventoryDto,
  MAX_QUANTITY,
} from './dto/inventory.dto';
import { toAdjustment, toInventoryItem } from './inventory.mapper';
import { InventoryService } from './inventory.service';
import { ADJUSTMENTS, INVENTORY } from './inventory.repository';
import { CommitHook } from '../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator';

/**
 * Stock levels look the same in v1 and v2 (no money), so one controller serves both;
 * v2's cursor-only rule is enforced for every v2 collection in one place (http/).
 */
@ApiTags('inventory')
@Controller({ path: 'inventory', version: ['1', '2'] })
export class InventoryController {
  constructor(private readonly inventory: InventoryService) {}

  @Get()
  @RequirePermission('inventory:read')
  @ApiOperation({ operationId: 'listInventory', summary: 'List stock levels' })
  @ApiPage(InventoryItemDto, () => INVENTORY)
  async list(@Query() query: ListInventoryDto): Promise<Page<InventoryItemDto>> {
    return (await this.inventory.list(query, query)).map(toInventoryItem);
  }

  @Get(':sku')
  @RequirePermission('inventory:read')
  @ApiOperation({ operationId: 'getInventoryItem', summary: 'Get the stock level of a SKU' })
  @ApiResource(InventoryItemDto)
  async get(@SkuParam() sku: string): Promise<InventoryItemDto> {
    return toInventoryItem(await this.inventory.get(sku));
  }

  @Put(':sku')
  @RequirePermission('inventory:write')
  @ApiOperation({
    operationId: 'replaceInventoryItem',
    summary: 'Set the stock level (omitted reorderLevel resets to 0)',
  })
  @ApiIfMatch()
  @ApiResource(InventoryItemDto)
  async replace(
    @SkuParam() sku: string,
    @Body() body: InventoryWriteDto,
    @IfMatch() versions?: number[],
  ): Promise<InventoryItemDto> {
    return toInventoryItem(await this.inventory.replace(sku, body, versions));
  }

  @Patch(':sku')
  @RequirePermission('inventory:write')
  @ApiOperation({
    operationId: 'updateInventoryItem',
    summary: 'Change some fields of a stock level',
  })
  @ApiIfMatch()
  @ApiResource(InventoryItemDto)
  async update(
    @SkuParam() sku: string,
    @Body() body: InventoryPatchDto,
    @IfMatch() versions?: number[],
  ): Promise<InventoryItemDto> {
    return toInventoryItem(await this.inventory.update(sku, body, versions));
  }

  @IdempotentPost(':sku/adjustments')
  @RequirePermission('inventory:write')
  @ApiOperation({
    operationId: 'createInventoryAdjustment',
    summary: 'Apply an atomic relative change to on-hand stock',
    description:
      `On-hand stock must end up between what is reserved and ${MAX_QUANTITY}, the most PUT and PATCH set. ` +
      'Below what is reserved is 409 `insufficient_stock`, above the most is 422 `validation_failed`; either way ' +
      '`errors` names `delta` with the bound it must keep, and nothing is written. Taking stock off is never ' +
      'refused for the upper bound.',
  })
  @ApiCreated(AdjustmentDto)
  async adjust(
    @SkuParam() sku: string,
    @Body() body: AdjustmentWriteDto,
    @Location() location: SetLocation,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<AdjustmentDto> {
    const adjustment = await this.inventory.adjust(sku, body.delta, body.reason, commitHook);
    location(adjustment.id);
    return toAdjustment(adjustment);
  }

  @Get(':sku/adjustments')
  @RequirePermission('inventory:read')
  @ApiOperation({
    operationId: 'listInventoryAdjustments',
    summary: 'The stock ledger of a SKU, newest first',
  })
  @ApiPage(AdjustmentDto, () => ADJUSTMENTS)
  async listAdjustments(
    @SkuParam() sku: string,
    @Query() query: OffsetListQueryDto,
  ): Promise<Page<AdjustmentDto>> {
    return (await this.inventory.listAdjustments(sku, query)).map(toAdjustment);
  }

  @Get(':sku/adjustments/:id')
  @RequirePermission('inventory:read')
  @ApiOperation({ operationId: 'getInventoryAdjustment', summary: 'Get one adjustment' })
  @ApiResource(AdjustmentDto)
  async getAdjustment(
    @SkuParam() sku: string,
    @ResourceId('inventory adjustment') id: string,
  ): Promise<AdjustmentDto> {
    return toAdjustment(await this.inventory.getAdjustment(sku, id));
  }
}
