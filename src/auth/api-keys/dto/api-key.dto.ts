import { ApiProperty } from '@nestjs/swagger';
import { ApiVersionProperty } from '../../../http/routing/openapi.decorators';
import { type Role, ROLES } from '../../permissions';
import { API_KEY_PATTERN } from '../api-key-hash';

// Answers have no validators to document their bounds from: the @ApiProperty options
// state what the write DTO and the columns allow (doc only).

/** An API key as every version shows it: never the key itself, nor its hash. */
export class ApiKeyDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  /** @example "ERP integration" */
  @ApiProperty({ minLength: 1, maxLength: 200 })
  name: string;
  /**
   * The first characters of the key, to tell keys apart (the rest is never shown again).
   * @example "coa_5qo3k9"
   */
  @ApiProperty({ minLength: 1, maxLength: 32 })
  prefix: string;
  @ApiProperty({ enum: ROLES, example: 'operations' })
  role: Role;
  /** The customer a `customer` key acts for; null for every other role. */
  @ApiProperty({ type: 'string', nullable: true, minLength: 1, maxLength: 64 })
  customerId: string | null;
  /** When the key stops working; null: never. An expired key is refused (401). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expiresAt: Date | null;
  /** Grows by one with every change; the ETag is this number. */
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The answer to creating a key: the key, shown this once. */
export class ApiKeyCreatedDto extends ApiKeyDto {
  /**
   * Write-once secret: the key itself, to send in `X-API-Key`. It appears in this answer
   * only and is never stored (only its SHA-256 hash is), so it cannot be shown again:
   * keep it now. A replay of this answer for the same `Idempotency-Key` omits it; if the
   * key was lost, revoke it and create another.
   * @example "coa_5qo3k9EhV617U_bQT3R9xrKQC7hRrFppOjx-9xwN-B4"
   */
  @ApiProperty({ required: false, pattern: API_KEY_PATTERN.source, maxLength: 47 })
  key?: string;
}
