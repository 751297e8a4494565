import { PartialType } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import {
  AMOUNT_MAX_LENGTH,
  AMOUNT_MESSAGE,
  AMOUNT_PATTERN,
  CURRENCY_PATTERN,
} from '../../common/dto/money.dto';
import { ProductFieldsDto } from './product-fields.dto';

/** POST and PUT body of /api/v1/products. */
export class ProductWriteV1Dto extends ProductFieldsDto {
  /**
   * Decimal string with exactly the currency's minor digits.
   * @example "19.99"
   */
  @IsString()
  @Length(1, AMOUNT_MAX_LENGTH)
  @Matches(AMOUNT_PATTERN, { message: AMOUNT_MESSAGE })
  price: string;

  /**
   * ISO 4217 currency code.
   * @example "EUR"
   */
  @IsString()
  @Length(3, 3)
  @Matches(CURRENCY_PATTERN, { message: 'must be an ISO 4217 code such as EUR' })
  currency: string;
}

/** PATCH body of /api/v1/products: any subset; `currency` only together with `price`. */
export class ProductPatchV1Dto extends PartialType(ProductWriteV1Dto, {
  skipNullProperties: false,
}) {}
