/**
 * One page of a collection, before it becomes HTTP: the items and where the neighbouring
 * pages start. Controllers map the items to their version's representation; the page
 * representation hook turns the rest into `pagination` and the `Link` header
 * (representation.hooks.ts).
 */
export class Page<T> {
  constructor(
    readonly items: T[],
    readonly total: number,
    readonly limit: number,
    /** cursor style: tokens; offset style: page numbers */
    readonly next: { cursor: string } | { page: number } | null,
    readonly prev: { cursor: string } | { page: number } | null,
    /** set for the offset style only */
    readonly page?: number,
  ) {}

  map<U>(fn: (item: T) => U): Page<U> {
    return new Page(this.items.map(fn), this.total, this.limit, this.next, this.prev, this.page);
  }
}
