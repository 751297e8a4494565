import { ApiProperty } from '@nestjs/swagger';
import {
  AMOUNT_MAX_LENGTH,
  AMOUNT_PATTERN,
  CURRENCY_PATTERN,
  MoneyDto,
  MoneyTotalDto,
  TOTAL_MAX_LENGTH,
  TOTAL_PATTERN,
} from '../../common/dto/money.dto';
import { ApiVersionProperty } from '../../http/routing/openapi.decorators';
import { SKU_PATTERN } from '../../products/dto/product-fields.dto';
import { ORDER_STATUSES, type OrderStatus } from '../order-status';
import { MAX_LINE_QUANTITY, MAX_ORDER_LINES, ShippingAddressDto } from './order-write.dto';

// Answers have no validators to document their bounds from: the @ApiProperty options
// state what the write DTOs and the database enforce (doc only).

/** Fields of an order line every version shows: the product as it was ordered. */
export class OrderLineBaseDto {
  /** @example "TSHIRT-RED-M" */
  @ApiProperty({ maxLength: 64, pattern: SKU_PATTERN.source })
  sku: string;
  @ApiProperty({ format: 'uuid' })
  productId: string;
  /** The product's name when the order was placed. */
  @ApiProperty({ minLength: 1, maxLength: 200 })
  name: string;
  /** @example 2 */
  @ApiProperty({ minimum: 1, maximum: MAX_LINE_QUANTITY })
  quantity: number;
}

/** Fields of an order every version shows. */
export class OrderBaseDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  /** @example "cus_8a41f2" */
  @ApiProperty({ minLength: 1, maxLength: 64 })
  customerId: string;
  @ApiProperty({ enum: ORDER_STATUSES, example: 'pending' })
  status: OrderStatus;
  /**
   * The currency of every amount of the order (v2 repeats it in each money object).
   * @example "EUR"
   */
  @ApiProperty({ maxLength: 3, pattern: CURRENCY_PATTERN.source })
  currency: string;
  shippingAddress: ShippingAddressDto;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 2000 })
  notes: string | null;
  /** Grows by one with every change; the ETag is this number. */
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** An order line as /api/v1 shows it. */
export class OrderLineV1Dto extends OrderLineBaseDto {
  /**
   * Catalog price when the order was placed, in the order's currency.
   * @example "19.99"
   */
  @ApiProperty({ maxLength: AMOUNT_MAX_LENGTH, pattern: AMOUNT_PATTERN.source })
  unitPrice: string;
  /**
   * unitPrice × quantity.
   * @example "39.98"
   */
  @ApiProperty({ maxLength: TOTAL_MAX_LENGTH, pattern: TOTAL_PATTERN.source })
  lineTotal: string;
}

/** An order as /api/v1 shows it. */
export class OrderV1Dto extends OrderBaseDto {
  @ApiProperty({ type: [OrderLineV1Dto], minItems: 1, maxItems: MAX_ORDER_LINES })
  lines: OrderLineV1Dto[];
  /**
   * The sum of the line totals.
   * @example "39.98"
   */
  @ApiProperty({ maxLength: TOTAL_MAX_LENGTH, pattern: TOTAL_PATTERN.source })
  total: string;
}

/** An order line as /api/v2 shows it. */
export class OrderLineV2Dto extends OrderLineBaseDto {
  /** Catalog price when the order was placed. */
  unitPrice: MoneyDto;
  /** unitPrice × quantity. */
  lineTotal: MoneyTotalDto;
}

/** An order as /api/v2 shows it. */
export class OrderV2Dto extends OrderBaseDto {
  @ApiProperty({ type: [OrderLineV2Dto], minItems: 1, maxItems: MAX_ORDER_LINES })
  lines: OrderLineV2Dto[];
  /** The sum of the line totals. */
  total: MoneyTotalDto;
}
