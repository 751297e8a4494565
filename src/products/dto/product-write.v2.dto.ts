import { PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import { MoneyDto } from '../../common/dto/money.dto';
import { ProductFieldsDto } from './product-fields.dto';

/** POST and PUT body of /api/v2/products. */
export class ProductWriteV2Dto extends ProductFieldsDto {
  @IsObject()
  @ValidateNested()
  @Type(() => MoneyDto)
  price: MoneyDto;
}

/** PATCH body of /api/v2/products: any subset. */
export class ProductPatchV2Dto extends PartialType(ProductWriteV2Dto, {
  skipNullProperties: false,
}) {}
