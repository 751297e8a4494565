import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_LIMIT, MAX_PAGE } from './list-query.dto';

/**
 * A link repeats the request's filters, which Node bounds with its 16 KiB header limit
 * (client-errors.ts), after the base URL, with a cursor of our own: 20 KiB holds them.
 */
export const MAX_LINK_LENGTH = 20 * 1024;

// The @ApiProperty options below only document (an answer has no validators to derive
// bounds from): the same bounds as the query parameters that produced the page.

/** The `pagination` object of every collection answer (API.md §4). */
export class PaginationDto {
  /**
   * Items matching the filters, over all pages.
   * @example 1234
   */
  @ApiProperty({ minimum: 0 })
  total: number;
  /** @example 20 */
  @ApiProperty({ minimum: 1, maximum: MAX_LIMIT })
  limit: number;
  /** The offset style's current page (v1 `page` only). */
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE })
  page?: number;
  /** Absolute URL of the next page; null on the last. */
  @ApiProperty({ type: String, format: 'uri', maxLength: MAX_LINK_LENGTH, nullable: true })
  next: string | null;
  /** Absolute URL of the previous page; null on the first. */
  @ApiProperty({ type: String, format: 'uri', maxLength: MAX_LINK_LENGTH, nullable: true })
  prev: string | null;
}
