import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stock moves become HOT updates. Every order line reserves stock with an UPDATE of its
 * inventory item, the busiest UPDATE of the service. PostgreSQL can rewrite a row in place
 * (a heap-only tuple: no new index entries) only when no index refers to a changed column,
 * and the below-reorder-level index's predicate named `quantity_on_hand` and
 * `quantity_reserved`: every reservation wrote new entries into all four indexes of the
 * table and left dead ones behind (a bench run grew the table of 1,000 items from 100 kB
 * to 4 MB). The predicate now reads a stored generated column, `below_reorder`, which
 * changes only when an item crosses its reorder level; and pages are filled to 70 % so
 * the new version of a row finds room on its own page. Measured: nearly every reservation
 * HOT, 5–15 % less WAL per order, and the table no longer grows with the orders
 * (docs/operations.md, "Stock moves are HOT updates").
 *
 * Adding a stored column rewrites the table under an exclusive lock: about 6 s per
 * million items (docs/operations.md, "Migrations without downtime").
 */
export class InventoryHotUpdates1763856000080 implements MigrationInterface {
  name = 'InventoryHotUpdates1763856000080';

  async up(q: QueryRunner): Promise<void> {
    // first, so the rewrite below already leaves the room
    await q.query(`ALTER TABLE inventory_items SET (fillfactor = 70)`);
    await q.query(`
      ALTER TABLE inventory_items ADD COLUMN below_reorder boolean NOT NULL
        GENERATED ALWAYS AS (quantity_on_hand - quantity_reserved < reorder_level) STORED`);
    await q.query(`DROP INDEX inventory_items_below_reorder_idx`);
    await q.query(`
      CREATE INDEX inventory_items_below_reorder_idx ON inventory_items (sku)
      WHERE archived_at IS NULL AND below_reorder`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX inventory_items_below_reorder_idx`);
    await q.query(`
      CREATE INDEX inventory_items_below_reorder_idx ON inventory_items (sku)
      WHERE archived_at IS NULL AND quantity_on_hand - quantity_reserved < reorder_level`);
    await q.query(`ALTER TABLE inventory_items DROP COLUMN below_reorder`);
    await q.query(`ALTER TABLE inventory_items RESET (fillfactor)`);
  }
}
