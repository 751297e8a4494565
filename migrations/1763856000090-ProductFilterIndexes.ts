import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each index's name and definition; all of them cover live products only. */
const INDEXES = [
  ['products_name_trgm_idx', 'USING gin (name gin_trgm_ops)'],
  ['products_sku_trgm_idx', 'USING gin (sku gin_trgm_ops)'],
  ['products_active_idx', '(active)'],
  ['products_currency_idx', '(currency)'],
] as const;

/**
 * Indexes for the products filters that had none, which at a million products read the
 * whole table for a rare value, once for the page and once for its `total`:
 *
 * - `q`, a case-insensitive substring of the name or the SKU (`ILIKE '%…%'`), which no
 *   B-tree serves: a trigram index per column (pg_trgm, a trusted extension: the
 *   database's owner may create it), combined with BitmapOr: over 2 s became 5–90 ms
 *   for a term matching up to 10,000 products. A term of one or two characters has no
 *   trigram to look up and still reads the table.
 * - `active` and `currency`: B-trees of the one column (7 and 21 MB at a million rows).
 *   A rare value (`active=false`, a second currency) is found in them at once, where it
 *   took 0.35 s; a common one is still counted entry by entry, as any `total` of a
 *   million is.
 *
 * Built CONCURRENTLY (outside a transaction), so a live catalog keeps taking writes.
 */
export class ProductFilterIndexes1763856000090 implements MigrationInterface {
  name = 'ProductFilterIndexes1763856000090';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    for (const [index, definition] of INDEXES) {
      await q.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index} ON products ${definition} WHERE archived_at IS NULL`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [index] of INDEXES) await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
  }
}
