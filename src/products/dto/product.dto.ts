import { ApiProperty } from '@nestjs/swagger';
import {
  AMOUNT_MAX_LENGTH,
  AMOUNT_PATTERN,
  CURRENCY_PATTERN,
  MoneyDto,
} from '../../common/dto/money.dto';
import { ApiVersionProperty } from '../../http/routing/openapi.decorators';
import { SKU_PATTERN } from './product-fields.dto';

// Answers have no validators to document their bounds from: the @ApiProperty options
// state the formats the write DTOs enforce (doc only).

/** Fields of a product every version shows. */
export class ProductBaseDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ maxLength: 64, pattern: SKU_PATTERN.source })
  sku: string;
  @ApiProperty({ minLength: 1, maxLength: 200 })
  name: string;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 5000 })
  description: string | null;
  @ApiProperty({ minLength: 1, maxLength: 100 })
  category: string;
  active: boolean;
  /** Grows by one with every change; the ETag is this number. */
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A product as /api/v1 shows it. */
export class ProductV1Dto extends ProductBaseDto {
  /** @example "19.99" */
  @ApiProperty({ maxLength: AMOUNT_MAX_LENGTH, pattern: AMOUNT_PATTERN.source })
  price: string;
  /** @example "EUR" */
  @ApiProperty({ maxLength: 3, pattern: CURRENCY_PATTERN.source })
  currency: string;
}

/** A product as /api/v2 shows it. */
export class ProductV2Dto extends ProductBaseDto {
  price: MoneyDto;
}
