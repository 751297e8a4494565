/** How one sortable field of a collection is read from SQL and from its entity. */
export interface SortableField {
  /** qualified column, e.g. `p.created_at` */
  column: string;
  /** entity property holding the value, for building cursors */
  property: string;
  kind: 'string' | 'number' | 'date' | 'decimal';
}

/**
 * What the shared paginator needs to know about one collection. Only non-null columns may
 * be sortable, so keyset comparisons never meet NULL.
 */
export interface CollectionSpec {
  /** binds cursors to this collection */
  name: string;
  /** the unique key that breaks ties */
  key: SortableField;
  sortable: Record<string, SortableField>;
  /** used when the client sends no `sort` */
  defaultSort: string;
  /**
   * The table whose rows `row_count_of` counts (migrations RowCounts, RowCountMarks) when
   * they are this collection's whole list: its `total` is then read, not counted
   * (paginate).
   */
  counted?: string;
}

/** The name `sort` takes the tie-breaking key by (`id`; `sku` for inventory). */
export function keyName(spec: CollectionSpec): string {
  return (
    Object.keys(spec.sortable).find((name) => spec.sortable[name] === spec.key) ?? spec.key.property
  );
}
