import { DataSource, QueryFailedError } from 'typeorm';
import { PreparedStatement } from '../src/database/prepared-statement';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The hot paths' statements are prepared once per connection (src/database/prepared-statement.ts):
 * node-postgres must get them under their name, and TypeORM must still answer and fail as
 * it does for a plain text.
 */
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

  it('is prepared under its name on the connection that runs it, and answers as the text does', async () => {
    const statement = new PreparedStatement('SELECT $1::int + 1 AS next');
    const runner = db.createQueryRunner();
    try {
      expect(await preparedIn(runner)).not.toContain(statement.name);
      const first = await statement.run<{ next: number }[]>(runner, [41]);
      const again = await statement.run<{ next: number }[]>(runner, [1]);
      expect(first).toEqual(await runner.query('SELECT $1::int + 1 AS next', [41]));
      expect([first[0].next, again[0].next]).toEqual([42, 2]);
      expect(await preparedIn(runner)).toContain(statement.name);
    } finally {
      await runner.release();
    }
  });

  it('names statements by their text, so another text never reuses a name', () => {
    const a = new PreparedStatement('SELECT 1');
    expect(new PreparedStatement('SELECT 1').name).toBe(a.name);
    expect(new PreparedStatement('SELECT 2').name).not.toBe(a.name);
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
