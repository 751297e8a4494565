import { IsBoolean, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsOmittable } from '../../common/dto/omittable';

export const SKU_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** The product fields every API version shares; money is added per version. */
export class ProductFieldsDto {
  /**
   * Stock keeping unit, unique across all products (archived ones too). It keys the
   * product's inventory and cannot change.
   * @example "TSHIRT-RED-M"
   */
  @IsString()
  @Length(1, 64)
  @Matches(SKU_PATTERN, { message: 'must match ^[A-Za-z0-9._-]{1,64}$' })
  sku: string;

  /** @example "Red T-shirt, size M" */
  @IsString()
  @Length(1, 200)
  name: string;

  /** Free text; omitted or null means none. */
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  /** @example "apparel" */
  @IsString()
  @Length(1, 100)
  category: string;

  /** Inactive products stay visible but cannot be ordered. Defaults to true. */
  @IsOmittable()
  @IsBoolean()
  active?: boolean;
}
