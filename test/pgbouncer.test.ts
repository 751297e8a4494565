import { randomUUID } from 'node:crypto';
import {
  ORDER_TEST_ENV,
  orderBody,
  setOrderStatus,
  stockedProduct,
  stockOf,
} from './support/order-factories';
import { pgBouncerProgram, type PgBouncer, startPgBouncer } from './support/pgbouncer';
import { expectProblem } from './support/problem';
import { startTestAppOn, type TestApp } from './support/test-app';
import { createTestDatabase, type TestDatabase } from './support/test-database';

/**
 * docs/operations.md, "PgBouncer in transaction mode": the API behind PgBouncer with
 * DATABASE_PREPARED_STATEMENTS=off, with fewer server connections than its own pool, so
 * its transactions (START sent with their first statements, statements pipelined, the
 * outbox and the Idempotency-Key's answer sent with the COMMIT) take turns on shared server
 * connections. Needs PostgreSQL (DATABASE_URL) and the `pgbouncer` program (Debian's
 * package; .ci/run installs it).
 */
const program = pgBouncerProgram();
const runs = Boolean(process.env.DATABASE_URL && program);
const describeIfBouncer = runs ? describe : describe.skip;

describeIfBouncer(
  'behind PgBouncer in transaction mode (skipped unless on PostgreSQL with pgbouncer installed)',
  () => {
    let database: TestDatabase;
    let bouncer: PgBouncer;
    let api: TestApp;

    beforeAll(async () => {
      database = await createTestDatabase();
      bouncer = await startPgBouncer(database.target.url, 2);
      api = await startTestAppOn(
        { url: bouncer.through(database.target.url), embedded: false },
        { ...ORDER_TEST_ENV, DATABASE_PREPARED_STATEMENTS: 'off' },
      );
    });

    afterAll(async () => {
      await api?.close();
      await bouncer?.stop();
      await database?.drop();
    });

    it('parallel orders, keyed and not, for scarce stock: exactly the stock is sold, and a cancel gives it back', async () => {
      const product = await stockedProduct(api, 12);
      const line = [{ sku: product.sku, quantity: 1 }];

      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          api.post(
            '/api/v1/orders',
            orderBody(line),
            i % 2 === 0 ? { headers: { 'Idempotency-Key': randomUUID() } } : {},
          ),
        ),
      );

      const created = responses.filter((r) => r.status === 201);
      expect(created).toHaveLength(12);
      for (const refused of responses.filter((r) => r.status !== 201)) {
        expectProblem(refused, 409, 'insufficient_stock');
      }
      expect(await stockOf(api, product.sku)).toEqual({
        quantityOnHand: 12,
        quantityReserved: 12,
        quantityAvailable: 0,
      });

      const cancelled = await setOrderStatus(api, created[0].body.id, 'cancelled');
      expect(cancelled.status).toBe(200);
      expect((await stockOf(api, product.sku)).quantityReserved).toBe(11);
    });

    it("replays an Idempotency-Key's order instead of placing it again", async () => {
      const product = await stockedProduct(api, 5);
      const body = orderBody([{ sku: product.sku, quantity: 2 }]);
      const key = { headers: { 'Idempotency-Key': randomUUID() } };

      const first = await api.post('/api/v1/orders', body, key);
      const retry = await api.post('/api/v1/orders', body, key);

      expect(first.status).toBe(201);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
      expect((await stockOf(api, product.sku)).quantityReserved).toBe(2);
    });

    it('reads outside transactions: a product by id, revalidated, and a list page', async () => {
      const category = `bouncer-${randomUUID()}`;
      const product = await stockedProduct(api, 1, { category });

      const read = await api.get(`/api/v1/products/${product.id}`);
      const etag = read.headers.get('etag') ?? '';
      const again = await api.get(`/api/v1/products/${product.id}`, {
        headers: { 'If-None-Match': etag },
      });
      const list = await api.get(`/api/v1/products?category=${category}`);

      expect(read.status).toBe(200);
      expect(read.body.sku).toBe(product.sku);
      expect(again.status).toBe(304);
      expect(list.status).toBe(200);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([product.id]);
    });
  },
);
