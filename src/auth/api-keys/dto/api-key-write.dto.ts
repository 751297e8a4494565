import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsRfc3339 } from '../../../common/dto/date-time';
import { type Role, ROLES } from '../../permissions';
import { IsLine } from '../../../common/dto/text';

/** POST body of /api-keys. */
export class ApiKeyCreateDto {
  /**
   * What the key is for, so people can tell keys apart.
   * @example "ERP integration"
   */
  @IsString()
  @Length(1, 200)
  @IsLine()
  name: string;

  /**
   * The role the key acts with (the role table of the authentication guide). A `customer`
   * key sees only its customer's orders, invoices and shipments.
   * @example "operations"
   */
  @IsString()
  @IsIn(ROLES)
  role: Role;

  /**
   * The customer a `customer` key acts for: required for that role, refused for every
   * other. An opaque id of at most 64 characters (for a customer user, its user id).
   * @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11"
   */
  @IsOptional()
  @IsString()
  @Length(1, 64)
  customerId?: string | null;

  /**
   * When the key stops working (RFC 3339, in the future); omitted or null: never.
   * @example "2027-01-01T00:00:00Z"
   */
  @IsOptional()
  @IsRfc3339()
  expiresAt?: string | null;
}
