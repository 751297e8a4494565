import { DataSource, type DataSourceOptions, QueryFailedError } from 'typeorm';
import { allowsNamedStatements, dataSourceOptions } from '../src/database/data-source-options';
import { PreparedStatement } from '../src/database/prepared-statement';
import { createOrder, stockedProduct } from './support/order-factories';
import { startTestApp, TestApp } from './support/test-app';
import { createTestDatabase } from './support/test-database';

/**
 * The hot paths' statements are prepared once per connection (src/database/prepared-statement.ts):
 * node-postgres must get them under their name, and TypeORM must still answer and fail as
 * it does for a plain text.
 */
/**
 * A data source on `options`. PGlite's socket server takes one connection at a time and
 * learns of a closed one a moment later, so a refused first connection is tried again.
 */
async function connect(options: DataSourceOptions): Promise<DataSource> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await new DataSource(options).initialize();
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('prepared statements', () => {
  let api: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    api = await startTestApp();
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  const preparedIn = async (runner: { query: DataSource['query'] }) =>
    (await runner.query<{ name: string }[]>('SELECT name FROM pg_prepared_statements')).map(
      (row) => row.name,
    );

  it('is prepared under its name on the connection that runs it (PostgreSQL only), and answers as the text does', async () => {
    const statement = new PreparedStatement('SELECT $1::int + 1 AS next');
    const runner = db.createQueryRunner();
    try {
      expect(await preparedIn(runner)).not.toContain(statement.name);
      const first = await statement.run<{ next: number }[]>(runner.manager, [41]);
      const again = await statement.run<{ next: number }[]>(runner.manager, [1]);
      expect(first).toEqual(await runner.query('SELECT $1::int + 1 AS next', [41]));
      expect([first[0].next, again[0].next]).toEqual([42, 2]);
      // PGlite (the embedded database) runs it as text: data-source-options.ts
      const embedded = !process.env.DATABASE_URL;
      expect(allowsNamedStatements(db)).toBe(!embedded);
      expect((await preparedIn(runner)).includes(statement.name)).toBe(!embedded);
    } finally {
      await runner.release();
    }
  });

  it('runs again on a later connection to the same database', async () => {
    // PGlite (the embedded database) is one session that outlives its connections and
    // keeps what an earlier one prepared; a second prepare of the name would fail there.
    const statement = new PreparedStatement('SELECT $1::text AS echoed');
    const database = await createTestDatabase();
    try {
      for (const value of ['first connection', 'a later one']) {
        const dataSource = await connect(dataSourceOptions(database.target));
        try {
          expect(await statement.run(dataSource, [value])).toEqual([{ echoed: value }]);
        } finally {
          await dataSource.destroy();
        }
      }
    } finally {
      await database.drop();
    }
  });

  it.each([
    ['on', true],
    ['off', false],
  ])(
    'DATABASE_PREPARED_STATEMENTS=%s: an order and a GET by id leave their statements prepared on the connection, or none',
    async (setting, prepared) => {
      // one connection, so the statements the requests ran and the later read share it
      const own = await startTestApp({
        DATABASE_PREPARED_STATEMENTS: setting,
        DATABASE_POOL_SIZE: '1',
      });
      try {
        const product = await stockedProduct(own, 5);
        await createOrder(own, [{ sku: product.sku, quantity: 2 }]);
        expect((await own.get(`/api/v1/products/${product.id}`)).status).toBe(200);
        const names = (await preparedIn(own.app.get(DataSource))).filter((name) =>
          name.startsWith('coa_'),
        );
        const embedded = !process.env.DATABASE_URL;
        expect(names.length > 0).toBe(prepared && !embedded);
      } finally {
        await own.close();
      }
    },
  );

  it('names statements by their text, so another text never reuses a name', () => {
    const a = new PreparedStatement('SELECT 1');
    expect(new PreparedStatement('SELECT 1').name).toBe(a.name);
    expect(new PreparedStatement('SELECT 2').name).not.toBe(a.name);
  });

  it('answers outside a transaction (on the pool) as TypeORM answers the text: rows, or [rows, affected] for an UPDATE', async () => {
    const sku = `PREP-${Date.now()}-shape`;
    const created = await api.post<{ id: string }>('/api/v1/products', {
      sku,
      name: 'Prepared',
      category: 'tests',
      price: '1.00',
      currency: 'EUR',
    });
    expect(created.status).toBe(201);
    const select = 'SELECT sku, reorder_level FROM inventory_items WHERE sku = $1';
    const update = `UPDATE inventory_items SET reorder_level = reorder_level + 1 WHERE sku = $1
      RETURNING reorder_level`;

    const selected = await new PreparedStatement(select).run(db, [sku]);
    const selectedByTypeOrm: unknown = await db.query(select, [sku]);
    const updated = await new PreparedStatement(update).run(db, [sku]);

    expect(selected).toEqual([{ sku, reorder_level: 0 }]);
    expect(selected).toEqual(selectedByTypeOrm);
    expect(updated).toEqual([[{ reorder_level: 1 }], 1]);
    expect(await db.query(update, [sku])).toEqual([[{ reorder_level: 2 }], 1]);
  });

  it('fails with the QueryFailedError and SQLSTATE that error mapping and retries read', async () => {
    const statement = new PreparedStatement(
      `UPDATE inventory_items SET quantity_reserved = -1 WHERE sku = $1`,
    );
    const sku = `PREP-${Date.now()}`;
    const product = await api.post<{ id: string }>('/api/v1/products', {
      sku,
      name: 'Prepared',
      category: 'tests',
      price: '1.00',
      currency: 'EUR',
    });
    expect(product.status).toBe(201);
    const failure = (await statement.run(db, [sku]).catch((error: unknown) => error)) as {
      driverError?: { code?: string };
    };
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure.driverError?.code).toBe('23514'); // check_violation
  });
});
