import { ApiProperty } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsRfc3339 } from '../../../common/dto/date-time';

/** The longest period one usage answer covers: 31 days of hours. */
export const MAX_USAGE_HOURS = 31 * 24;

/** Query of GET /api-keys/{id}/usage; without both, the last 7 days. */
export class ApiKeyUsageQueryDto {
  /**
   * Start (RFC 3339, inclusive, rounded down to its hour); default: 7 days before `to`.
   * @example "2026-11-21T00:00:00Z"
   */
  @IsOptional()
  @IsRfc3339()
  from?: string;

  /**
   * End (RFC 3339, exclusive); default: now. At most 31 days after `from`.
   * @example "2026-11-22T00:00:00Z"
   */
  @IsOptional()
  @IsRfc3339()
  to?: string;
}

/** Requests a key made in one hour. */
export class ApiKeyUsageHourDto {
  /**
   * Start of the hour (UTC).
   * @example "2026-11-22T10:00:00.000Z"
   */
  hour: Date;
  /**
   * Requests authenticated with the key in that hour.
   * @example 42
   */
  @ApiProperty({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
  requests: number;
}

/** Requests per hour of one key: hours without requests are left out. */
export class ApiKeyUsageDto {
  /** Start of the period (inclusive, whole hour). */
  from: Date;
  /** End of the period (exclusive). */
  to: Date;
  /** Hours with requests, oldest first. */
  @ApiProperty({ type: [ApiKeyUsageHourDto], maxItems: MAX_USAGE_HOURS })
  data: ApiKeyUsageHourDto[];
}
