import { PartialType } from '@nestjs/swagger';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  NotEquals,
} from 'class-validator';
import { QueryBoolean } from '../../common/dto/query-transforms';
import { OffsetListQueryDto } from '../../http/pagination/list-query.dto';

const MAX_QUANTITY = 1_000_000_000;

/** A stock level (the same in every API version). */
export class InventoryItemDto {
  /** @example "TSHIRT-RED-M" */
  sku: string;
  productId: string;
  /** Units physically in stock. */
  quantityOnHand: number;
  /** Units promised to open orders. */
  quantityReserved: number;
  /** On hand minus reserved; never negative. */
  quantityAvailable: number;
  /** `belowReorderLevel=true` lists items whose available quantity is below this. */
  reorderLevel: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** PUT body: the settable fields; an omitted `reorderLevel` resets to 0. */
export class InventoryWriteDto {
  @IsInt()
  @Min(0)
  @Max(MAX_QUANTITY)
  quantityOnHand: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_QUANTITY)
  reorderLevel?: number;
}

/** PATCH body: any subset. */
export class InventoryPatchDto extends PartialType(InventoryWriteDto) {}

/** A relative change of on-hand stock, applied atomically. */
export class AdjustmentWriteDto {
  /**
   * Units to add (positive) or remove (negative); never zero.
   * @example -3
   */
  @IsInt()
  @NotEquals(0)
  @Min(-MAX_QUANTITY)
  @Max(MAX_QUANTITY)
  delta: number;

  /** @example "cycle count correction" */
  @IsString()
  @Length(1, 500)
  reason: string;
}

/** One applied adjustment and the stock level it produced. */
export class AdjustmentDto {
  id: string;
  sku: string;
  delta: number;
  reason: string;
  /** On hand right after this adjustment. */
  quantityOnHand: number;
  /** Reserved at that moment. */
  quantityReserved: number;
  /** Available right after this adjustment. */
  quantityAvailable: number;
  /** Adjustments never change: always 1. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export class ListInventoryDto extends OffsetListQueryDto {
  /** Only items whose available quantity is below (true) or not below (false) their reorder level. */
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  belowReorderLevel?: boolean;
}
