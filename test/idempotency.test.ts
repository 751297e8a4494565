import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { WebhookWorker } from '../src/events/deliveries/webhook-worker';
import { productBody } from './support/factories';
import { confirmedOrder } from './support/fulfilment-factories';
import {
  createApiKey,
  customerIdFor,
  ORDER_TEST_ENV,
  orderBody,
  stockedProduct,
  stockOf,
} from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { parseAnswer, rawExchange } from './support/raw-http';
import { ADMIN_KEY, ApiResponse, RequestOptions, startTestApp, TestApp } from './support/test-app';

/** API.md §6: Idempotency-Key on every POST. */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp({ ...ORDER_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
});

afterAll(async () => {
  await api?.close();
});

const withKey = (key: string, options: RequestOptions = {}): RequestOptions => ({
  ...options,
  headers: { ...options.headers, 'Idempotency-Key': key },
});

async function ordersOf(customerId: string): Promise<{ id: string }[]> {
  const response = await api.get(`/api/v1/orders?customerId=${customerId}&limit=100`);
  expect(response.status).toBe(200);
  return response.body.data;
}

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await condition()); tries++) {
    if (tries === 100) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sql = <T = any>(query: string, parameters: unknown[] = []): Promise<T> =>
  api.app.get(DataSource).query(query, parameters);

/**
 * POSTs with `key` while the database refuses to store that key's answer, as it would in
 * a blip after the work: the answer, and the key's records right after it.
 */
async function postWithAnswerRefused(
  path: string,
  body: unknown,
  key: string,
): Promise<{ response: ApiResponse; records: unknown[] }> {
  await sql(
    `ALTER TABLE idempotency_keys ADD CONSTRAINT test_refuse_answer CHECK (key <> '${key}' OR status <> 'done')`,
  );
  try {
    const response = await api.post(path, body, withKey(key));
    const records = await sql(`SELECT status FROM idempotency_keys WHERE key = $1`, [key]);
    return { response, records };
  } finally {
    await sql(`ALTER TABLE idempotency_keys DROP CONSTRAINT test_refuse_answer`);
  }
}

describe('POST /api/v1/orders with an Idempotency-Key', () => {
  it('replays the first answer for the same key and body: same status, body and Location', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 2 }]);
    const key = randomUUID();

    const first = await api.post('/api/v1/orders', body, withKey(key));
    const retry = await api.post('/api/v1/orders', body, withKey(key));

    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await ordersOf(body.customerId)).toHaveLength(1);
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(2);
  });

  it('treats a body with its members in another order as the same request', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const { shippingAddress, lines, customerId } = body;
    const key = randomUUID();

    const first = await api.post('/api/v1/orders', body, withKey(key));
    const retry = await api.post(
      '/api/v1/orders',
      { shippingAddress, customerId, lines },
      withKey(key),
    );

    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 idempotency_key_reused for the same key with another body, and creates nothing', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();
    await api.post('/api/v1/orders', body, withKey(key));

    const other = await api.post(
      '/api/v1/orders',
      { ...body, lines: [{ sku: product.sku, quantity: 2 }] },
      withKey(key),
    );

    expectProblem(other, 422, 'idempotency_key_reused');
    expect(await ordersOf(body.customerId)).toHaveLength(1);
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(1);
  });

  it.each([
    ['malformed JSON (400)', '{"customerId":', 400],
    ['a body nested deeper than 32 levels (422)', `${'['.repeat(40)}${']'.repeat(40)}`, 422],
  ])(
    'does not store an answer the JSON parser gave before the operation ran: %s',
    async (_, refusedBody, status) => {
      const product = await stockedProduct(api, 10);
      const body = orderBody([{ sku: product.sku, quantity: 1 }]);
      const key = randomUUID();

      const refused = await api.request('POST', '/api/v1/orders', {
        rawBody: refusedBody,
        headers: { 'Idempotency-Key': key, 'Content-Type': 'application/json' },
      });
      const corrected = await api.post('/api/v1/orders', body, withKey(key));

      expect(refused.status).toBe(status);
      expect(corrected.status).toBe(201);
      expect(corrected.headers.get('idempotent-replayed')).toBeNull();
      expect(await ordersOf(body.customerId)).toHaveLength(1);
    },
  );

  it('stores the 422 of an invalid field value, the answer of the operation itself', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();

    const refused = await api.post(
      '/api/v1/orders',
      { ...body, lines: [{ sku: product.sku, quantity: 0 }] },
      withKey(key),
    );
    const retry = await api.post(
      '/api/v1/orders',
      { ...body, lines: [{ sku: product.sku, quantity: 0 }] },
      withKey(key),
    );

    expectProblem(refused, 422, 'validation_failed');
    expect(retry.status).toBe(422);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 idempotency_key_reused for the same key on another path', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();
    await api.post('/api/v1/orders', body, withKey(key));

    const v2 = await api.post('/api/v2/orders', body, withKey(key));

    expectProblem(v2, 422, 'idempotency_key_reused');
  });

  it('20 parallel POSTs with one key create exactly one order; the others replay it or are 409 in use', async () => {
    const product = await stockedProduct(api, 100);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();

    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.post('/api/v1/orders', body, withKey(key))),
    );

    const created = responses.filter((r) => r.status === 201);
    const inUse = responses.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const response of inUse) {
      expectProblem(response, 409, 'idempotency_key_in_use');
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await ordersOf(body.customerId)).toHaveLength(1);
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(1);
    // once the first has finished, a retry gets its answer
    const retry = await api.post('/api/v1/orders', body, withKey(key));
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(created[0].body.id);
  });

  it('scopes keys to the caller: the same key from another caller is a new request', async () => {
    const product = await stockedProduct(api, 10);
    const operations = await createApiKey(api, 'operations');
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();

    const mine = await api.post('/api/v1/orders', body, withKey(key));
    const theirs = await api.post('/api/v1/orders', body, withKey(key, operations.as));

    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await ordersOf(body.customerId)).toHaveLength(2);
  });

  it('scopes keys per customer too: two customers may use the same key', async () => {
    const product = await stockedProduct(api, 10);
    const alice = await createApiKey(api, 'customer', customerIdFor('alice'));
    const bob = await createApiKey(api, 'customer', customerIdFor('bob'));
    const { customerId: _staffOnly, ...body } = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = 'checkout-1';

    const a = await api.post('/api/v1/orders', body, withKey(key, alice.as));
    const b = await api.post('/api/v1/orders', body, withKey(key, bob.as));
    const aAgain = await api.post('/api/v1/orders', body, withKey(key, alice.as));

    expect([a.status, b.status, aAgain.status]).toEqual([201, 201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
    expect(aAgain.body).toEqual(a.body);
    expect(aAgain.headers.get('idempotent-replayed')).toBe('true');
  });

  it('stores and replays a 4xx answer: 409 insufficient_stock stays the answer for that key', async () => {
    const product = await stockedProduct(api, 1);
    const body = orderBody([{ sku: product.sku, quantity: 2 }]);
    const key = randomUUID();

    const first = await api.post('/api/v1/orders', body, withKey(key));
    await api.request('PUT', `/api/v1/inventory/${product.sku}`, { body: { quantityOnHand: 10 } });
    const retry = await api.post('/api/v1/orders', body, withKey(key));
    const freshKey = await api.post('/api/v1/orders', body, withKey(randomUUID()));

    const problem = expectProblem(first, 409, 'insufficient_stock');
    const replayed = expectProblem(retry, 409, 'insufficient_stock');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const { requestId: _a, ...firstBody } = problem;
    const { requestId: _b, ...replayedBody } = replayed;
    expect(replayedBody).toEqual(firstBody);
    expect(freshKey.status).toBe(201);
  });

  it('stores and replays a 422 for an invalid body', async () => {
    const body = orderBody([{ sku: 'NO-SUCH-SKU', quantity: 0 }]);
    const key = randomUUID();

    const first = await api.post('/api/v1/orders', body, withKey(key));
    const retry = await api.post('/api/v1/orders', body, withKey(key));

    expect(fieldsOf(expectProblem(first, 422, 'validation_failed'))).toEqual(['lines[0].quantity']);
    expect(fieldsOf(expectProblem(retry, 422, 'validation_failed'))).toEqual(['lines[0].quantity']);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keeps nothing of a first request that failed with a 5xx, so a retry runs afresh', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();
    // Make the order's insert fail for this one customer: the server answers 500.
    await sql(
      `ALTER TABLE orders ADD CONSTRAINT test_fail_once CHECK (customer_id <> '${body.customerId}')`,
    );
    let failed: ApiResponse;
    try {
      failed = await api.post('/api/v1/orders', body, withKey(key));
    } finally {
      await sql(`ALTER TABLE orders DROP CONSTRAINT test_fail_once`);
    }

    const retry = await api.post('/api/v1/orders', body, withKey(key));

    expectProblem(failed, 500, 'internal_error');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await ordersOf(body.customerId)).toHaveLength(1);
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(1);
  });

  it('replays the stored answer to a retry whose own run fails with a 5xx before its claim', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();
    const first = await api.post('/api/v1/orders', body, withKey(key));
    // The retry's claim fails on our side, as a broken dependency before the claim would.
    await sql(`
      CREATE FUNCTION test_refuse_claim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.key LIKE '${key}%' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await sql(
      `CREATE TRIGGER test_refuse_claim BEFORE INSERT ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION test_refuse_claim()`,
    );
    let retry: ApiResponse;
    let fresh: ApiResponse;
    try {
      retry = await api.post('/api/v1/orders', body, withKey(key));
      // with no stored answer to fall back on, the 5xx stays the answer
      fresh = await api.post('/api/v1/orders', body, withKey(`${key}-other`));
    } finally {
      await sql(`DROP TRIGGER test_refuse_claim ON idempotency_keys`);
      await sql(`DROP FUNCTION test_refuse_claim()`);
    }

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expectProblem(fresh, 500, 'internal_error');
    expect(await ordersOf(body.customerId)).toHaveLength(1);
  });

  it('rolls the order back when its answer cannot be stored, so a retry creates it once', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();
    // The order's work is done, then storing its answer fails.
    const { response: first, records } = await postWithAnswerRefused('/api/v1/orders', body, key);
    const afterFailure = await ordersOf(body.customerId);
    const reservedAfterFailure = (await stockOf(api, product.sku)).quantityReserved;

    const retry = await api.post('/api/v1/orders', body, withKey(key));
    const replayed = await api.post('/api/v1/orders', body, withKey(key));

    expectProblem(first, 500, 'internal_error');
    expect(records).toEqual([]);
    expect(afterFailure).toHaveLength(0);
    expect(reservedAfterFailure).toBe(0);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(retry.body.id);
    expect(await ordersOf(body.customerId)).toHaveLength(1);
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(1);
  });

  // Earlier versions stored the answer after the commit; a rolling deploy reads what they
  // left.
  it('never runs again a request an earlier version committed without storing its answer', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();
    const first = await api.post('/api/v1/orders', body, withKey(key));
    const leftBehind = (claimedAgo: string) =>
      sql(
        `UPDATE idempotency_keys
            SET status = 'committed', response_status = NULL, response_body = NULL,
                response_headers = NULL, claimed_at = now() - $2::interval
          WHERE key = $1`,
        [key, claimedAgo],
      );

    // its process may still be storing the answer: the lease has not ended
    await leftBehind('1 second');
    const running = await api.post('/api/v1/orders', body, withKey(key));
    // it died before storing it: the lease ended long ago
    await leftBehind('10 minutes');
    const lost = await api.post('/api/v1/orders', body, withKey(key));

    expect(first.status).toBe(201);
    expectProblem(running, 409, 'idempotency_key_in_use');
    expect(running.headers.get('retry-after')).toBe('1');
    const problem = expectProblem(lost, 409, 'idempotency_key_in_use');
    // not "still being processed": it was carried out, and says so
    expect(problem.detail).toMatch(/carried out, but its answer was lost; it will not run again/);
    expect(lost.headers.get('retry-after')).toBeNull();
    expect(await ordersOf(body.customerId)).toHaveLength(1);
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(1);
  });

  // PGlite, the embedded database, is one session: requests there never overlap.
  const onPostgres = process.env.DATABASE_URL ? it : it.skip;

  onPostgres(
    'answers a retry 409 while the first request runs, without waiting for it, then replays',
    async () => {
      const product = await stockedProduct(api, 10);
      const body = orderBody([{ sku: product.sku, quantity: 1 }]);
      const key = randomUUID();
      // The first request waits inside its transaction, its key claimed, for the stock row
      // this test holds locked until the retry has its answer: a retry that waited for the
      // first would never get one.
      const holder = api.app.get(DataSource).createQueryRunner();
      await holder.connect();
      let first: Promise<ApiResponse>;
      let retry: ApiResponse;
      try {
        await holder.startTransaction();
        await holder.query(`SELECT 1 FROM inventory_items WHERE sku = $1 FOR UPDATE`, [
          product.sku,
        ]);
        first = api.post('/api/v1/orders', body, withKey(key));
        await waitUntil(async () => {
          const [row] = await sql(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
          );
          return row.waiting > 0;
        });
        retry = await api.post('/api/v1/orders', body, withKey(key));
      } finally {
        if (holder.isTransactionActive) await holder.rollbackTransaction();
        await holder.release();
      }
      const created = await first;
      const later = await api.post('/api/v1/orders', body, withKey(key));

      expectProblem(retry, 409, 'idempotency_key_in_use');
      expect(retry.headers.get('retry-after')).toBe('1');
      expect(created.status).toBe(201);
      expect(later.status).toBe(201);
      expect(later.headers.get('idempotent-replayed')).toBe('true');
      expect(later.body.id).toBe(created.body.id);
      expect(await ordersOf(body.customerId)).toHaveLength(1);
      expect((await stockOf(api, product.sku)).quantityReserved).toBe(1);
    },
  );

  it('ignores an expired record: after 24 h the key may carry a new request', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);
    const key = randomUUID();
    const first = await api.post('/api/v1/orders', body, withKey(key));
    await sql(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`,
      [key],
    );

    const again = await api.post(
      '/api/v1/orders',
      { ...body, notes: 'a new request' },
      withKey(key),
    );

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps the record for 24 hours', async () => {
    const product = await stockedProduct(api, 10);
    const key = randomUUID();

    await api.post('/api/v1/orders', orderBody([{ sku: product.sku, quantity: 1 }]), withKey(key));

    const [record] = await sql<{ ttl_hours: number; status: string; response_status: number }[]>(
      `SELECT extract(epoch FROM expires_at - claimed_at) / 3600 AS ttl_hours, status, response_status
         FROM idempotency_keys WHERE key = $1`,
      [key],
    );
    expect(Number(record.ttl_hours)).toBeCloseTo(24, 2);
    expect(record).toMatchObject({ status: 'done', response_status: 201 });
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['empty', ''],
  ])('answers 400 for a key %s, and creates nothing', async (_case, key) => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);

    const response = await api.post('/api/v1/orders', body, withKey(key));

    expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toEqual(['Idempotency-Key']);
    expect(await ordersOf(body.customerId)).toHaveLength(0);
  });

  it('answers 400 for a key sent in two headers, which a proxy keeping one would read as another key', async () => {
    const product = await stockedProduct(api, 10);
    const body = JSON.stringify(orderBody([{ sku: product.sku, quantity: 1 }]));

    const answer = parseAnswer(
      await rawExchange(
        api.baseUrl,
        `POST /api/v1/orders HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
          'Idempotency-Key: a1\r\nIdempotency-Key: b1\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      ),
    );

    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([
      { field: 'Idempotency-Key', message: 'must be given once' },
    ]);
    expect(await ordersOf(JSON.parse(body).customerId)).toHaveLength(0);
  });

  it('counts a key in characters of the UTF-8 it was sent in, and replays it', async () => {
    const product = await stockedProduct(api, 10);
    const body = JSON.stringify(orderBody([{ sku: product.sku, quantity: 1 }]));
    const send = (key: string) =>
      rawExchange(
        api.baseUrl,
        `POST /api/v1/orders HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
          `Idempotency-Key: ${key}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      ).then(parseAnswer);
    const key = `${randomUUID()}-${'é'.repeat(218)}`; // 255 characters, 473 bytes

    const first = await send(key);
    const retry = await send(key);
    const tooLong = await send(`${key}é`);

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expect(tooLong.status).toBe(400);
    const [stored] = await sql<{ key: string }[]>(
      `SELECT key FROM idempotency_keys WHERE key LIKE $1`,
      [`${key.slice(0, 36)}%`],
    );
    expect(stored.key).toBe(key);
  });

  it('accepts a key of exactly 255 characters', async () => {
    const product = await stockedProduct(api, 10);

    const response = await api.post(
      '/api/v1/orders',
      orderBody([{ sku: product.sku, quantity: 1 }]),
      withKey('k'.repeat(255)),
    );

    expect(response.status).toBe(201);
  });

  it('without a key, each POST is a new request', async () => {
    const product = await stockedProduct(api, 10);
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);

    await api.post('/api/v1/orders', body);
    await api.post('/api/v1/orders', body);

    expect(await ordersOf(body.customerId)).toHaveLength(2);
  });
});

describe('Idempotency-Key on other POSTs', () => {
  it('takes a retry with {} for the same request as a first try with no body, either way round', async () => {
    const rotations = `${await webhookEndpoint()}/secret-rotations`;
    const [first, second] = [randomUUID(), randomUUID()];

    const bare = await api.post(rotations, undefined, withKey(first));
    const braces = await api.post(rotations, {}, withKey(first));
    const bracesFirst = await api.post(rotations, {}, withKey(second));
    const bareAfter = await api.post(rotations, undefined, withKey(second));

    expect(bare.status).toBe(200);
    expect(braces.status).toBe(200);
    expect(braces.headers.get('idempotent-replayed')).toBe('true');
    // the new secret is shown once, to the first answer only
    const { secret, ...shown } = bare.body;
    expect(secret).toEqual(expect.any(String));
    expect(braces.body).toEqual(shown);
    expect(bareAfter.status).toBe(200);
    expect(bareAfter.headers.get('idempotent-replayed')).toBe('true');
    expect(bareAfter.body).toEqual({ ...bracesFirst.body, secret: undefined });
  });

  it('works on POST /api/v1/products: the retry replays instead of a 409 sku conflict', async () => {
    const body = productBody();
    const key = randomUUID();

    const first = await api.post('/api/v1/products', body, withKey(key));
    const retry = await api.post('/api/v1/products', body, withKey(key));
    const withoutKey = await api.post('/api/v1/products', body);

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expectProblem(withoutKey, 409, 'conflict');
  });

  it('works on POST /api/v2/products and on inventory adjustments', async () => {
    const { price: _p, currency: _c, ...fields } = productBody();
    const v2Body = { ...fields, price: { amount: '3.00', currency: 'EUR' } };
    const productKey = randomUUID();
    const created = await api.post('/api/v2/products', v2Body, withKey(productKey));
    const replayed = await api.post('/api/v2/products', v2Body, withKey(productKey));
    const sku = created.body.sku as string;
    const adjustmentKey = randomUUID();
    const adjustment = { delta: 5, reason: 'delivery' };

    const adjusted = await api.post(
      `/api/v1/inventory/${sku}/adjustments`,
      adjustment,
      withKey(adjustmentKey),
    );
    const again = await api.post(
      `/api/v1/inventory/${sku}/adjustments`,
      adjustment,
      withKey(adjustmentKey),
    );

    expect(replayed.body).toEqual(created.body);
    expect(adjusted.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(adjusted.body);
    expect((await stockOf(api, sku)).quantityOnHand).toBe(5);
  });

  // The adjustment's transaction ends before the service turns its outcome into a 4xx: the
  // answer is stored in that transaction, which then commits.
  it('stores a 4xx a service gives after its transaction, and replays it', async () => {
    const product = await stockedProduct(api, 2);
    const key = randomUUID();
    const removal = { delta: -3, reason: 'breakage' };

    const refused = await api.post(
      `/api/v1/inventory/${product.sku}/adjustments`,
      removal,
      withKey(key),
    );
    // stock arrives meanwhile: a retry that ran afresh would now succeed
    const restocked = await api.post(`/api/v1/inventory/${product.sku}/adjustments`, {
      delta: 5,
      reason: 'delivery',
    });
    const retry = await api.post(
      `/api/v1/inventory/${product.sku}/adjustments`,
      removal,
      withKey(key),
    );
    const [record] = await sql(
      `SELECT status, response_status FROM idempotency_keys WHERE key = $1`,
      [key],
    );

    expectProblem(refused, 409, 'insufficient_stock');
    expect(restocked.status).toBe(201);
    expectProblem(retry, 409, 'insufficient_stock');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(record).toEqual({ status: 'done', response_status: 409 });
    expect((await stockOf(api, product.sku)).quantityOnHand).toBe(7);
  });

  it('is ignored on other methods', async () => {
    const product = await stockedProduct(api, 1);
    const key = randomUUID();

    const first = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { name: 'One' },
      ...withKey(key),
    });
    const second = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { name: 'Two' },
      ...withKey(key),
    });

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.name).toBe('Two');
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });
});

/** A POST to run: its path and body, made ready by what it needs first. */
type PostCase = () => { path: string; body?: unknown } | Promise<{ path: string; body?: unknown }>;

async function webhookEndpoint(): Promise<string> {
  const created = await api.post('/api/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/closed',
    events: ['order.created'],
  });
  expect(created.status).toBe(201);
  return `/api/v1/webhook-endpoints/${created.body.id}`;
}

const POSTS: [string, PostCase][] = [
  [
    'POST /orders',
    async () => {
      const product = await stockedProduct(api, 10);
      return { path: '/api/v1/orders', body: orderBody([{ sku: product.sku, quantity: 1 }]) };
    },
  ],
  ['POST /products', () => ({ path: '/api/v1/products', body: productBody() })],
  [
    'POST /users',
    () => ({
      path: '/api/v1/users',
      body: {
        email: `${randomUUID()}@example.com`,
        password: 'correct horse battery staple',
        roles: ['operations'],
      },
    }),
  ],
  [
    'POST /api-keys',
    () => ({ path: '/api/v1/api-keys', body: { name: 'ERP', role: 'operations' } }),
  ],
  [
    'POST /oauth-clients',
    () => ({
      path: '/api/v1/oauth-clients',
      body: {
        name: 'Dashboard',
        redirectUris: ['https://dashboard.example.com/callback'],
        public: false,
        scopes: ['products:read'],
      },
    }),
  ],
  [
    'POST /webhook-endpoints',
    () => ({
      path: '/api/v1/webhook-endpoints',
      body: { url: 'http://127.0.0.1:9/hooks', events: ['order.created'] },
    }),
  ],
  [
    'POST /invoices',
    async () => {
      const { order } = await confirmedOrder(api);
      return { path: '/api/v1/invoices', body: { orderId: order.id } };
    },
  ],
  [
    'POST /shipments',
    async () => {
      const { order } = await confirmedOrder(api);
      return { path: '/api/v1/shipments', body: { orderId: order.id, carrier: 'DHL' } };
    },
  ],
  [
    'POST /inventory/{sku}/adjustments',
    async () => {
      const product = await stockedProduct(api, 1);
      return {
        path: `/api/v1/inventory/${product.sku}/adjustments`,
        body: { delta: 2, reason: 'recount' },
      };
    },
  ],
  [
    'POST /webhook-endpoints/{id}/secret-rotations',
    async () => ({ path: `${await webhookEndpoint()}/secret-rotations` }),
  ],
  [
    'POST /webhook-endpoints/{id}/deliveries/{id}/retries',
    async () => {
      const endpoint = await webhookEndpoint();
      await confirmedOrder(api);
      await api.app.get(WebhookWorker).runOnce();
      const deliveries = await api.get(`${endpoint}/deliveries`);
      expect(deliveries.body.data.length).toBeGreaterThan(0);
      return { path: `${endpoint}/deliveries/${deliveries.body.data[0].id}/retries` };
    },
  ],
];

describe('Idempotency-Key on every POST', () => {
  it('is tested below on every POST the API documents', async () => {
    const documented = new Set<string>();
    for (const version of ['v1', 'v2']) {
      const document = await api.get(`/docs/${version}/openapi.json`, { auth: false });
      expect(document.status).toBe(200);
      for (const [path, operations] of Object.entries(document.body.paths)) {
        if ('post' in (operations as object)) {
          documented.add(`POST ${path.replace(/^\/api\/v\d/, '').replace(/\{[^}]+\}/g, '{id}')}`);
        }
      }
    }
    const tested = POSTS.map(([name]) => name.replace(/\{[^}]+\}/g, '{id}'));

    expect([...documented].sort()).toEqual([...new Set(tested)].sort());
  });

  it.each(POSTS)(
    '%s stores its answer in the transaction of its work: both commit or neither',
    async (_, prepare) => {
      const { path, body } = await prepare();
      const key = randomUUID();
      // A handler whose work did not run in the hook's transaction would commit it anyway
      // and answer 2xx.
      const { response: refused, records } = await postWithAnswerRefused(path, body, key);
      const retry = await api.post(path, body, withKey(key));
      const [record] = await sql(`SELECT status FROM idempotency_keys WHERE key = $1`, [key]);

      expectProblem(refused, 500, 'internal_error');
      expect(records).toEqual([]);
      expect(retry.status).toBeLessThan(300);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(record.status).toBe('done');
    },
  );
});
