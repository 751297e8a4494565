'use strict';
/**
 * Fills the benchmark database: `count` products generated inside PostgreSQL
 * (INSERT … SELECT over generate_series, in batches, so a million rows take seconds and
 * nothing crosses the wire), stock for the first STOCKED products, then VACUUM ANALYZE so
 * index-only scans and plans are what a settled production table gets. A marker row
 * records what was seeded, so a second run with the same size reuses the database.
 */
const CATEGORIES = 16;
const STOCKED = 1000;
const BATCH = 100_000;
const SEED_VERSION = 1;

/** Whether the database holds exactly this seed (else run.js recreates it). */
async function isSeeded(client, count) {
  const { rows } = await client
    .query('SELECT products, seed_version FROM bench_meta')
    .catch(() => ({ rows: [] })); // no table: not seeded
  return rows.length === 1 && rows[0].products === count && rows[0].seed_version === SEED_VERSION;
}

/** Seeds a freshly migrated, empty database. */
async function seed(client, count, log) {
  log(`seeding ${count} products…`);
  for (let from = 1; from <= count; from += BATCH) {
    const to = Math.min(count, from + BATCH - 1);
    // Newest first under the default sort: created_at grows with i, one second apart.
    await client.query(
      `INSERT INTO products (id, sku, name, description, category, price_minor, price_scale,
         currency, active, created_at, updated_at)
       SELECT gen_random_uuid(), 'BENCH-' || lpad(i::text, 8, '0'), 'Bench product ' || i,
         'Seeded by npm run bench', 'category-' || (i % ${CATEGORIES}), 100 + (i * 37) % 100000, 2,
         'EUR', true, t, t
       FROM generate_series($1::int, $2::int) AS i,
         LATERAL (SELECT timestamptz '2025-01-01T00:00:00Z' + i * interval '1 second') AS c(t)`,
      [from, to],
    );
    log(`  ${to} / ${count}`);
  }
  await client.query(
    `INSERT INTO inventory_items (sku, product_id, quantity_on_hand)
     SELECT sku, id, 1000000000 FROM products ORDER BY sku LIMIT ${STOCKED}`,
  );
  await client.query(
    'CREATE TABLE bench_meta (products integer NOT NULL, seed_version integer NOT NULL)',
  );
  await client.query('INSERT INTO bench_meta VALUES ($1, $2)', [count, SEED_VERSION]);
  log('VACUUM ANALYZE…');
  await client.query('VACUUM ANALYZE');
}

/** SKUs that have stock, for order scenarios. */
async function stockedSkus(client) {
  const { rows } = await client.query('SELECT sku FROM inventory_items ORDER BY sku');
  return rows.map((r) => r.sku);
}

module.exports = { isSeeded, seed, stockedSkus, CATEGORIES };
