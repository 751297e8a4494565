import { DataSource } from 'typeorm';
import { RowCounts1763856000100 } from '../migrations/1763856000100-RowCounts';
import { RowCountMarks1763856000110 } from '../migrations/1763856000110-RowCountMarks';
import { RowCounts } from '../src/database/row-counts';
import { createProduct } from './support/factories';
import { confirmedOrder, createInvoice, createShipment } from './support/fulfilment-factories';
import {
  createApiKey,
  createOrder,
  ORDER_TEST_ENV,
  orderBody,
  stockedProduct,
} from './support/order-factories';
import { RequestOptions, startTestApp, TestApp } from './support/test-app';

/**
 * The `total` of a whole collection (staff, no filter) is read from the counts the
 * database keeps (migrations RowCounts and RowCountMarks) instead of counting every row.
 * It must stay exactly COUNT(*) of the live rows after every kind of write, concurrent
 * ones, folds and mark moves included, and a narrowed list must still count its own rows.
 */

let api: TestApp;
let db: DataSource;

/** kept: by triggers (migration RowCounts); marked: a mark and the rows past it (RowCountMarks) */
const COUNTED = [
  { path: '/api/v1/products', table: 'products', kept: true },
  { path: '/api/v1/inventory', table: 'inventory_items', kept: true },
  { path: '/api/v1/orders', table: 'orders', kept: false },
  { path: '/api/v1/invoices', table: 'invoices', kept: false },
  { path: '/api/v1/shipments', table: 'shipments', kept: false },
  { path: '/api/v1/events', table: 'events', kept: false },
];
const CATALOG = COUNTED.filter((c) => c.kept);

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
  db = api.app.get(DataSource);
  const archived = await createProduct(api);
  await archive(archived.id);
  await stockedProduct(api, 3, { category: 'counted-a' });
  const { order } = await confirmedOrder(api);
  await createInvoice(api, order.id);
  await createShipment(api, order.id);
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

const rowsOf = (c: (typeof COUNTED)[number]) =>
  rowsWhere(c.table, c.kept ? 'archived_at IS NULL' : 'true');

async function totalOf(path: string, options?: RequestOptions): Promise<number> {
  const response = await api.get(path, options);
  expect(response.status).toBe(200);
  return response.body.pagination.total as number;
}

/** Adds `delta` to a table's count behind the database's back, so reads of it show. */
const skew = (c: (typeof COUNTED)[number], delta: number) =>
  c.kept
    ? db.query(
        `INSERT INTO row_counts (relation, shard, n) VALUES ($1, 0, $2)
         ON CONFLICT (relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n`,
        [c.table, delta],
      )
    : db.query('UPDATE row_count_marks SET n = n + $2 WHERE relation = $1', [c.table, delta]);

const expectExactCounts = async () => {
  for (const c of COUNTED) {
    expect([c.path, await totalOf(c.path)]).toEqual([c.path, await rowsOf(c)]);
  }
};

describe('whole-collection totals', () => {
  it.each(COUNTED)('$path: the total is COUNT(*) of the live rows', async (c) => {
    const rows = await rowsOf(c);
    expect(rows).toBeGreaterThan(0);
    if (c.kept) expect(rows).toBeLessThan(await rowsWhere(c.table, 'true'));
    expect(await totalOf(`${c.path}?limit=1`)).toBe(rows);
  });

  it('an order counts at once, before and after the marks move', async () => {
    const before = await Promise.all(COUNTED.map((c) => totalOf(c.path)));
    const product = await stockedProduct(api, 5);
    await createOrder(api, [{ sku: product.sku, quantity: 1 }]);
    const after = await Promise.all(COUNTED.map((c) => totalOf(c.path)));
    const grew = (path: string) =>
      after[COUNTED.findIndex((c) => c.path === path)] -
      before[COUNTED.findIndex((c) => c.path === path)];
    expect(grew('/api/v1/orders')).toBe(1);
    expect(grew('/api/v1/events')).toBe(1); // order.created
    await api.app.get(RowCounts).mark();
    expect(await Promise.all(COUNTED.map((c) => totalOf(c.path)))).toEqual(after);
    await expectExactCounts();
  });

  it('a new product adds to both catalog counts, archiving it takes it out of both', async () => {
    const before = await Promise.all(CATALOG.map((c) => totalOf(c.path)));
    const product = await createProduct(api);
    expect(await Promise.all(CATALOG.map((c) => totalOf(c.path)))).toEqual(
      before.map((n) => n + 1),
    );
    await archive(product.id);
    expect(await Promise.all(CATALOG.map((c) => totalOf(c.path)))).toEqual(before);
    // an order's stock moves update inventory items without touching the count
    const stocked = await stockedProduct(api, 5);
    await createOrder(api, [{ sku: stocked.sku, quantity: 2 }]);
    expect(await Promise.all(CATALOG.map((c) => totalOf(c.path)))).toEqual(
      before.map((n) => n + 1),
    );
    await expectExactCounts();
  });

  it('every whole list reads the count, in either paging style and past the end', async () => {
    for (const c of COUNTED) {
      const rows = await rowsOf(c);
      await skew(c, 1000);
      try {
        expect(await totalOf(c.path)).toBe(rows + 1000);
        expect(await totalOf(`${c.path}?sort=-createdAt`)).toBe(rows + 1000);
        expect(await totalOf(`${c.path}?page=1&limit=1`)).toBe(rows + 1000);
        // an empty page carries no row: the count is read on its own
        expect(await totalOf(`${c.path}?page=9999`)).toBe(rows + 1000);
        expect(await totalOf(c.path.replace('/v1/', '/v2/'))).toBe(rows + 1000);
      } finally {
        await skew(c, -1000);
      }
    }
  });

  it('a list narrowed by a filter or by its owner counts its own rows', async () => {
    const customerId = 'cus_counted_owner';
    const product = await stockedProduct(api, 10);
    await createOrder(api, [{ sku: product.sku, quantity: 1 }], { customerId });
    const customer = await createApiKey(api, 'customer', customerId);
    for (const c of COUNTED) await skew(c, 1000);
    try {
      expect(await totalOf('/api/v1/products?category=counted-a')).toBe(1);
      expect(await totalOf('/api/v1/products?category=counted-a&page=9999')).toBe(1);
      expect(await totalOf('/api/v1/products?active=true')).toBe(
        await rowsWhere('products', 'archived_at IS NULL AND active'),
      );
      expect(await totalOf('/api/v1/inventory?belowReorderLevel=false')).toBe(
        await rowsWhere('inventory_items', 'archived_at IS NULL AND NOT below_reorder'),
      );
      expect(await totalOf(`/api/v1/orders?customerId=${customerId}`)).toBe(1);
      expect(await totalOf('/api/v1/orders', customer.as)).toBe(1);
      expect(await totalOf('/api/v1/invoices', customer.as)).toBe(0);
      expect(await totalOf('/api/v1/shipments?status=label_created')).toBe(
        await rowsWhere('shipments', `status = 'label_created'`),
      );
      expect(await totalOf('/api/v1/events?type=order.created')).toBe(
        await rowsWhere('events', `type = 'order.created'`),
      );
    } finally {
      for (const c of COUNTED) await skew(c, -1000);
    }
  });
});

describe('concurrent writes and folds', () => {
  it('creates and archives while folds run: counts exact, and a fold leaves shard 0', async () => {
    const folder = api.app.get(RowCounts);
    const doomed = await Promise.all(Array.from({ length: 10 }, () => createProduct(api)));
    const stocked = await stockedProduct(api, 100);
    const writes = Promise.all([
      ...Array.from({ length: 20 }, () => createProduct(api)),
      ...doomed.map((p) => archive(p.id)),
      ...Array.from({ length: 20 }, () =>
        api.post('/api/v1/orders', orderBody([{ sku: stocked.sku, quantity: 1 }])),
      ),
    ]);
    const folds = Promise.all(
      Array.from({ length: 5 }, () => Promise.all([folder.fold(), folder.mark()])),
    );
    await Promise.all([writes, folds]);
    await expectExactCounts();

    await folder.fold();
    const shards: { shard: number }[] = await db.query(`SELECT DISTINCT shard FROM row_counts`);
    expect(shards).toEqual([{ shard: 0 }]);
    await expectExactCounts();
  });
});

// PGlite, the embedded database, is one session: a transaction held open would stop the API.
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

onPostgres('a mark and a transaction still open', () => {
  it('rows of a transaction running while the mark moves count once, when it commits', async () => {
    const folder = api.app.get(RowCounts);
    const before = await totalOf('/api/v1/events');
    const open = db.createQueryRunner();
    try {
      await open.startTransaction();
      // a copy of an order's event, so the feed still answers as documented
      await open.query(
        `INSERT INTO events (id, type, resource_type, resource_id, payload)
         SELECT gen_random_uuid(), type, resource_type, resource_id, payload
           FROM events WHERE type = 'order.created' LIMIT 1`,
      );
      await folder.mark();
      expect(await totalOf('/api/v1/events')).toBe(before);
      await open.commitTransaction();
    } finally {
      await open.release();
    }
    expect(await totalOf('/api/v1/events')).toBe(before + 1);
    await folder.mark();
    await folder.mark();
    expect(await totalOf('/api/v1/events')).toBe(before + 1);
    await expectExactCounts();
  });
});

describe('the migration', () => {
  it('counts the rows a table already holds; deletes and TRUNCATE count too', async () => {
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await new RowCountMarks1763856000110().down(runner);
      await new RowCounts1763856000100().down(runner);
      await new RowCounts1763856000100().up(runner);
      await new RowCountMarks1763856000110().up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await expectExactCounts();
    // rows from before the mark, and after it
    const product = await stockedProduct(api, 5);
    await createOrder(api, [{ sku: product.sku, quantity: 1 }]);
    await api.app.get(RowCounts).mark();
    await createOrder(api, [{ sku: product.sku, quantity: 1 }]);
    await db.query(`DELETE FROM webhook_deliveries`);
    await db.query(`DELETE FROM events WHERE type = 'order.created'`);
    await expectExactCounts();
    await db.query('TRUNCATE events CASCADE');
    expect(await totalOf('/api/v1/events')).toBe(0);

    const gone = await createProduct(api);
    await db.query(`DELETE FROM inventory_items WHERE product_id = $1`, [gone.id]);
    await db.query(`DELETE FROM products WHERE id = $1`, [gone.id]);
    await expectExactCounts();
    await db.query('TRUNCATE products, inventory_items CASCADE');
    for (const c of CATALOG) expect(await totalOf(c.path)).toBe(0);
  });
});
