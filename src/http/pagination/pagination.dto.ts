/** The `pagination` object of every collection answer (API.md §4). */
export class PaginationDto {
  /**
   * Items matching the filters, over all pages.
   * @example 1234
   */
  total: number;
  /** @example 20 */
  limit: number;
  /** The offset style's current page (v1 `page` only). */
  page?: number;
  /** Absolute URL of the next page; null on the last. */
  next: string | null;
  /** Absolute URL of the previous page; null on the first. */
  prev: string | null;
}
