import {
  IsBoolean,
  IsNotIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsOmittable } from '../../common/dto/omittable';
import { IsLine, IsText } from '../../common/dto/text';

export const SKU_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** SKUs that match the pattern but that no URL can name: `/inventory/..` is `/`. */
const DOT_SEGMENTS = ['.', '..'];

/** The product fields every API version shares; money is added per version. */
export class ProductFieldsDto {
  /**
   * Stock keeping unit, unique across all products (archived ones too). It keys the
   * product's inventory (`/inventory/{sku}`) and cannot change. `.` and `..` are refused:
   * in a URL they are dot segments, which clients remove before sending.
   * @example "TSHIRT-RED-M"
   */
  @IsString()
  @Length(1, 64)
  @Matches(SKU_PATTERN, { message: 'must match ^[A-Za-z0-9._-]{1,64}$' })
  @IsNotIn(DOT_SEGMENTS, {
    message: 'must not be . or ..: in a URL path they are dot segments (RFC 3986 §5.2.4)',
  })
  sku: string;

  /** @example "Red T-shirt, size M" */
  @IsString()
  @Length(1, 200)
  @IsLine()
  name: string;

  /** Free text; omitted or null means none. */
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  @IsText()
  description?: string | null;

  /** @example "apparel" */
  @IsString()
  @Length(1, 100)
  @IsLine()
  category: string;

  /** Inactive products stay visible but cannot be ordered. Defaults to true. */
  @IsOmittable()
  @IsBoolean()
  active?: boolean;
}
