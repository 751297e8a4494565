import { DataSource } from 'typeorm';
import { RowCounts1763856000100 } from '../migrations/1763856000100-RowCounts';
import { RowCountsFolder } from '../src/database/row-counts';
import { createProduct } from './support/factories';
import { createOrder, ORDER_TEST_ENV, stockedProduct } from './support/order-factories';
import { RequestOptions, startTestApp, TestApp } from './support/test-app';

/**
 * The `total` of the whole catalog (products, inventory; no filter) is read from
 * row_counts, which triggers keep (migration RowCounts), instead of counting every row. It
 * must stay exactly COUNT(*) of the live rows after every kind of write, concurrent ones
 * and folds included, and a narrowed list must still count its own rows.
 */

let api: TestApp;
let db: DataSource;

const COUNTED = [
  { path: '/api/v1/products', table: 'products' },
  { path: '/api/v1/inventory', table: 'inventory_items' },
];

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
  db = api.app.get(DataSource);
  const archived = await createProduct(api);
  await archive(archived.id);
  await stockedProduct(api, 3, { category: 'counted-a' });
});

afterAll(async () => {
  await api?.close();
});

async function archive(productId: string): Promise<void> {
  expect((await api.request('DELETE', `/api/v1/products/${productId}`)).status).toBe(204);
}

async function rowsWhere(table: string, condition: string): Promise<number> {
  const rows: { n: string }[] = await db.query(
    `SELECT count(*) AS n FROM ${table} WHERE ${condition}`,
  );
  return Number(rows[0].n);
}

const liveRows = (table: string) => rowsWhere(table, 'archived_at IS NULL');

async function totalOf(path: string, options?: RequestOptions): Promise<number> {
  const response = await api.get(path, options);
  expect(response.status).toBe(200);
  return response.body.pagination.total as number;
}

/** Adds `delta` to a table's count behind the triggers' back, so reads of it show. */
const skew = (table: string, delta: number) =>
  db.query(
    `INSERT INTO row_counts (relation, shard, n) VALUES ($1, 0, $2)
     ON CONFLICT (relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n`,
    [table, delta],
  );

const expectExactCounts = async () => {
  for (const c of COUNTED) expect(await totalOf(c.path)).toBe(await liveRows(c.table));
};

describe('whole-collection totals', () => {
  it.each(COUNTED)('$path: the total is COUNT(*) of the live rows', async (c) => {
    const rows = await liveRows(c.table);
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(await rowsWhere(c.table, 'true'));
    expect(await totalOf(`${c.path}?limit=1`)).toBe(rows);
  });

  it('a new product adds to both counts, archiving it takes it out of both', async () => {
    const before = await Promise.all(COUNTED.map((c) => totalOf(c.path)));
    const product = await createProduct(api);
    expect(await Promise.all(COUNTED.map((c) => totalOf(c.path)))).toEqual(
      before.map((n) => n + 1),
    );
    await archive(product.id);
    expect(await Promise.all(COUNTED.map((c) => totalOf(c.path)))).toEqual(before);
    // an order's stock moves update inventory items without touching the count
    const stocked = await stockedProduct(api, 5);
    await createOrder(api, [{ sku: stocked.sku, quantity: 2 }]);
    expect(await Promise.all(COUNTED.map((c) => totalOf(c.path)))).toEqual(
      before.map((n) => n + 1),
    );
    await expectExactCounts();
  });

  it('every whole list reads the count, in either paging style and past the end', async () => {
    for (const c of COUNTED) {
      const rows = await liveRows(c.table);
      await skew(c.table, 1000);
      try {
        expect(await totalOf(c.path)).toBe(rows + 1000);
        expect(await totalOf(`${c.path}?sort=-createdAt`)).toBe(rows + 1000);
        expect(await totalOf(`${c.path}?page=1&limit=1`)).toBe(rows + 1000);
        // an empty page carries no row: the count is read on its own
        expect(await totalOf(`${c.path}?page=9999`)).toBe(rows + 1000);
        expect(await totalOf(c.path.replace('/v1/', '/v2/'))).toBe(rows + 1000);
      } finally {
        await skew(c.table, -1000);
      }
    }
  });

  it('a list narrowed by a filter counts its own rows', async () => {
    for (const c of COUNTED) await skew(c.table, 1000);
    try {
      expect(await totalOf('/api/v1/products?category=counted-a')).toBe(1);
      expect(await totalOf('/api/v1/products?category=counted-a&page=9999')).toBe(1);
      expect(await totalOf('/api/v1/products?active=true')).toBe(
        await rowsWhere('products', 'archived_at IS NULL AND active'),
      );
      expect(await totalOf('/api/v1/inventory?belowReorderLevel=false')).toBe(
        await rowsWhere('inventory_items', 'archived_at IS NULL AND NOT below_reorder'),
      );
    } finally {
      for (const c of COUNTED) await skew(c.table, -1000);
    }
  });
});

describe('concurrent writes and folds', () => {
  it('creates and archives while folds run: counts exact, and a fold leaves shard 0', async () => {
    const folder = api.app.get(RowCountsFolder);
    const doomed = await Promise.all(Array.from({ length: 10 }, () => createProduct(api)));
    const writes = Promise.all([
      ...Array.from({ length: 20 }, () => createProduct(api)),
      ...doomed.map((p) => archive(p.id)),
    ]);
    const folds = Promise.all(Array.from({ length: 5 }, () => folder.fold()));
    await Promise.all([writes, folds]);
    await expectExactCounts();

    await folder.fold();
    const shards: { shard: number }[] = await db.query(`SELECT DISTINCT shard FROM row_counts`);
    expect(shards).toEqual([{ shard: 0 }]);
    await expectExactCounts();
  });
});

describe('the migration', () => {
  it('counts the rows a table already holds; deletes and TRUNCATE count too', async () => {
    const migration = new RowCounts1763856000100();
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await migration.down(runner);
      await migration.up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await expectExactCounts();

    const gone = await createProduct(api);
    await db.query(`DELETE FROM inventory_items WHERE product_id = $1`, [gone.id]);
    await db.query(`DELETE FROM products WHERE id = $1`, [gone.id]);
    await expectExactCounts();
    await db.query('TRUNCATE products, inventory_items CASCADE');
    for (const c of COUNTED) expect(await totalOf(c.path)).toBe(0);
  });
});
