import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Length, Matches } from 'class-validator';
import {
  AMOUNT_MAX_LENGTH,
  AMOUNT_MESSAGE,
  AMOUNT_PATTERN,
  CURRENCY_MESSAGE,
  CURRENCY_PATTERN,
  IsIso4217,
} from '../../common/dto/money.dto';
import { QueryBoolean } from '../../common/dto/query-transforms';
import { CursorListQueryDto, OffsetListQueryDto } from '../../http/pagination/list-query.dto';

/** Filters of the products collection (API.md §4). */
export class ProductFiltersDto {
  /** Exact category. */
  @IsOptional()
  @IsString()
  @Length(1, 100)
  category?: string;

  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  active?: boolean;

  /** Case-insensitive substring of the name or the SKU. */
  @IsOptional()
  @IsString()
  @Length(1, 200)
  q?: string;

  /** Lowest price, inclusive, as a decimal string. */
  @IsOptional()
  @IsString()
  @Matches(AMOUNT_PATTERN, { message: AMOUNT_MESSAGE })
  @ApiPropertyOptional({ maxLength: AMOUNT_MAX_LENGTH })
  minPrice?: string;

  /** Highest price, inclusive, as a decimal string. */
  @IsOptional()
  @IsString()
  @Matches(AMOUNT_PATTERN, { message: AMOUNT_MESSAGE })
  @ApiPropertyOptional({ maxLength: AMOUNT_MAX_LENGTH })
  maxPrice?: string;

  /** ISO 4217 currency code. */
  @IsOptional()
  @IsString()
  @Matches(CURRENCY_PATTERN, { message: CURRENCY_MESSAGE })
  @IsIso4217()
  @ApiPropertyOptional({ maxLength: 3 })
  currency?: string;
}

export class ListProductsV1Dto extends IntersectionType(OffsetListQueryDto, ProductFiltersDto) {}
export class ListProductsV2Dto extends IntersectionType(CursorListQueryDto, ProductFiltersDto) {}
