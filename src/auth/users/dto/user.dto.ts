import { ApiProperty } from '@nestjs/swagger';
import { ApiVersionProperty } from '../../../http/routing/openapi.decorators';
import { MAX_ROLES, type Role, ROLES } from '../../permissions';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../user-email';

// Answers have no validators to document their bounds from: the @ApiProperty options
// state what the write DTO and the columns allow (doc only).

/** A user as every version shows it: never the password, nor its hash. */
export class UserDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  /**
   * Lower case, as stored.
   * @example "ada@example.com"
   */
  @ApiProperty({ format: 'email', maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN.source })
  email: string;
  /** @example "Ada Lovelace" */
  @ApiProperty({ type: 'string', nullable: true, minLength: 1, maxLength: 200 })
  name: string | null;
  @ApiProperty({ enum: ROLES, isArray: true, minItems: 1, maxItems: MAX_ROLES })
  roles: Role[];
  /**
   * For a customer, its own id: what its orders, invoices and shipments carry as
   * `customerId`. Null for staff.
   */
  @ApiProperty({ type: 'string', nullable: true, maxLength: 64 })
  customerId: string | null;
  /** Grows by one with every change; the ETag is this number. */
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}
