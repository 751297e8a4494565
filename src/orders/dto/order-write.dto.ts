import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO31661Alpha2,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from '../../common/dto/omittable';
import { SKU_PATTERN } from '../../products/dto/product-fields.dto';
import { ORDER_STATUSES, type OrderStatus } from '../order-status';
import { IsLine, IsText } from '../../common/dto/text';

export const MAX_ORDER_LINES = 100;
export const MAX_LINE_QUANTITY = 10_000;

/** A postal address; the whole address is sent, also when it is changed. */
export class ShippingAddressDto {
  /**
   * Recipient.
   * @example "Ada Lovelace"
   */
  @IsString()
  @Length(1, 200)
  @IsLine()
  name: string;

  /** @example "12 Market Street" */
  @IsString()
  @Length(1, 200)
  @IsLine()
  line1: string;

  /** Apartment, floor, company; omitted or null means none. */
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @IsLine()
  line2?: string | null;

  /** @example "Berlin" */
  @IsString()
  @Length(1, 100)
  @IsLine()
  city: string;

  /** @example "10115" */
  @IsString()
  @Length(1, 20)
  @IsLine()
  postalCode: string;

  /**
   * ISO 3166-1 alpha-2 country code, upper case.
   * @example "DE"
   */
  @IsString()
  @Length(2, 2)
  @Matches(/^[A-Z]{2}$/, { message: 'must be an ISO 3166-1 alpha-2 code in upper case, e.g. DE' })
  @IsISO31661Alpha2({ message: 'must be an ISO 3166-1 alpha-2 country code, e.g. DE' })
  country: string;
}

/** One line of a new order: which product, how many. Price and name come from the catalog. */
export class OrderLineWriteDto {
  /** @example "TSHIRT-RED-M" */
  @IsString()
  @Length(1, 64)
  @Matches(SKU_PATTERN, { message: 'must match ^[A-Za-z0-9._-]{1,64}$' })
  sku: string;

  /** @example 2 */
  @IsInt()
  @Min(1)
  @Max(MAX_LINE_QUANTITY)
  quantity: number;
}

/** POST body of /orders (the same in every API version). */
export class OrderCreateDto {
  /** 1 to 100 lines, each SKU at most once. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ORDER_LINES)
  @ValidateNested({ each: true })
  @Type(() => OrderLineWriteDto)
  lines: OrderLineWriteDto[];

  @IsObject()
  @ValidateNested()
  @Type(() => ShippingAddressDto)
  shippingAddress: ShippingAddressDto;

  /** Free text for the people who handle the order; omitted or null means none. */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @IsText()
  notes?: string | null;

  /**
   * The customer the order is for, an opaque id of at most 64 characters. Required when
   * staff place the order; a customer may omit it (it is always its own).
   * @example "cus_8a41f2"
   */
  @IsOmittable()
  @IsString()
  @Length(1, 64)
  customerId?: string;
}

/** PATCH body of /orders/{id}: any subset, accepted while the order is `pending`. */
export class OrderPatchDto {
  /** Replaces the whole address. */
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => ShippingAddressDto)
  shippingAddress?: ShippingAddressDto;

  /** null clears the notes. */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @IsText()
  notes?: string | null;
}

/** PATCH body of /orders/{id}/status. */
export class OrderStatusWriteDto {
  /**
   * The status to move to: pending → confirmed → shipped → delivered; pending or
   * confirmed → cancelled.
   * @example "confirmed"
   */
  @IsString()
  @IsIn(ORDER_STATUSES)
  status: OrderStatus;
}
