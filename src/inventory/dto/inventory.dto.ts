import { ApiProperty, PartialType } from '@nestjs/swagger';
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
import { IsOmittable } from '../../common/dto/omittable';
import { QueryBoolean } from '../../common/dto/query-transforms';
import { ApiVersionProperty, PG_INTEGER_MAX } from '../../http/routing/openapi.decorators';
import { OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { SKU_PATTERN } from '../../products/dto/product-fields.dto';
import { IsLine } from '../../common/dto/text';

/** The most units PUT and PATCH set, and the most an adjustment can bring on hand. */
export const MAX_QUANTITY = 1_000_000_000;

// Answers have no validators to document their bounds from: the @ApiProperty options of
// the answer DTOs below (doc only) state what the write DTOs and the columns allow. Stock
// columns are PostgreSQL integers, never negative. On-hand stock can still pass
// MAX_QUANTITY: a cancelled shipment's units come back on top of what is on hand.
const ApiSku = () => ApiProperty({ maxLength: 64, pattern: SKU_PATTERN.source });
const ApiQuantity = () => ApiProperty({ minimum: 0, maximum: PG_INTEGER_MAX });

/** A stock level (the same in every API version). */
export class InventoryItemDto {
  /** @example "TSHIRT-RED-M" */
  @ApiSku()
  sku: string;
  @ApiProperty({ format: 'uuid' })
  productId: string;
  /** Units physically in stock. */
  @ApiQuantity()
  quantityOnHand: number;
  /** Units promised to open orders. */
  @ApiQuantity()
  quantityReserved: number;
  /** On hand minus reserved; never negative. */
  @ApiQuantity()
  quantityAvailable: number;
  /** `belowReorderLevel=true` lists items whose available quantity is below this. */
  @ApiProperty({ minimum: 0, maximum: MAX_QUANTITY })
  reorderLevel: number;
  @ApiVersionProperty()
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

  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(MAX_QUANTITY)
  reorderLevel?: number;
}

/** PATCH body: any subset. */
export class InventoryPatchDto extends PartialType(InventoryWriteDto, {
  skipNullProperties: false,
}) {}

/** A relative change of on-hand stock, applied atomically. */
export class AdjustmentWriteDto {
  // The plugin skips a property with @Min(-MAX_QUANTITY), comment and all: said here.
  @ApiProperty({
    description:
      'Units to add (positive) or remove (negative); never zero. On-hand stock must end up at least what is ' +
      `reserved (else 409 \`insufficient_stock\`) and, when adding, at most ${MAX_QUANTITY} (else 422 on \`delta\`).`,
    example: -3,
  })
  @IsInt()
  @NotEquals(0)
  @Min(-MAX_QUANTITY)
  @Max(MAX_QUANTITY)
  delta: number;

  /** @example "cycle count correction" */
  @IsString()
  @Length(1, 500)
  @IsLine()
  reason: string;
}

/** One applied adjustment and the stock level it produced. */
export class AdjustmentDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiSku()
  sku: string;
  /** Never zero. */
  @ApiProperty({ minimum: -MAX_QUANTITY, maximum: MAX_QUANTITY })
  delta: number;
  @ApiProperty({ minLength: 1, maxLength: 500 })
  reason: string;
  /** On hand right after this adjustment. */
  @ApiQuantity()
  quantityOnHand: number;
  /** Reserved at that moment. */
  @ApiQuantity()
  quantityReserved: number;
  /** Available right after this adjustment. */
  @ApiQuantity()
  quantityAvailable: number;
  /** Adjustments never change: always 1. */
  @ApiProperty({ minimum: 1, maximum: 1 })
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
