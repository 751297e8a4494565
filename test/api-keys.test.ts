import { createHash } from 'node:crypto';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { DataSource } from 'typeorm';
import { ApiKeyUsageRecorder } from '../src/auth/api-keys/api-key-usage.recorder';
import { ApiKeyUsageRepository } from '../src/auth/api-keys/api-key-usage.repository';
import { ApiKeysRepository } from '../src/auth/api-keys/api-keys.repository';
import { createProduct } from './support/factories';
import { addressBody, customerIdFor } from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ADMIN_KEY, RequestOptions, startTestApp, TestApp } from './support/test-app';

/**
 * API.md §2, §3 `/api-keys`, §8: keys shown once and stored hashed, revocation that takes
 * effect at once, expiry, customer keys, and per-hour usage counted in memory and flushed
 * in batches.
 */

const HOUR_MS = 3_600_000;
const KEY_PATTERN = /^coa_[A-Za-z0-9_-]{43}$/;

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp({ RATE_LIMIT_PER_HOUR: '1000000' });
});

afterAll(async () => {
  await api?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const as = (key: string): RequestOptions => ({ auth: false, headers: { 'X-API-Key': key } });

interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  role: string;
  customerId: string | null;
  expiresAt: string | null;
  version: number;
  [field: string]: unknown;
}

async function createKey(body: Record<string, unknown>, version = 'v1'): Promise<CreatedKey> {
  const response = await api.post(`/api/${version}/api-keys`, { name: 'test key', ...body });
  if (response.status !== 201) {
    throw new Error(`key not created: ${response.status} ${response.text}`);
  }
  return response.body as CreatedKey;
}

describe('creating a key', () => {
  it('answers 201 with Location and the key, once: coa_ prefix, 256 random bits, a prefix to tell it apart', async () => {
    const response = await api.post('/api/v1/api-keys', { name: 'ERP', role: 'operations' });

    expect(response.status).toBe(201);
    const body = response.body as CreatedKey;
    expect(response.headers.get('location')).toBe(`/api/v1/api-keys/${body.id}`);
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'ERP',
      prefix: body.key.slice(0, 10),
      role: 'operations',
      customerId: null,
      expiresAt: null,
      key: expect.stringMatching(KEY_PATTERN),
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(response.headers.get('etag')).toBe('"1"');
  });

  it('stores only the SHA-256 of the key: no column holds the key itself', async () => {
    const created = await createKey({ role: 'analyst' });

    const rows: Record<string, unknown>[] = await api.app
      .get(DataSource)
      .query('SELECT * FROM api_keys WHERE id = $1', [created.id]);

    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(sha256(created.key));
    expect(JSON.stringify(rows[0])).not.toContain(created.key);
  });

  it('never shows the key or its hash again: not in GET one, not in the list', async () => {
    const created = await createKey({ role: 'finance' });

    const one = await api.get(`/api/v1/api-keys/${created.id}`);
    const list = await api.get('/api/v1/api-keys?limit=100');

    expect(one.status).toBe(200);
    const { key: _key, ...shown } = created;
    expect(one.body).toEqual(shown);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(expect.arrayContaining([shown]));
    for (const text of [one.text, list.text]) {
      expect(text).not.toContain(created.key);
      expect(text).not.toContain(sha256(created.key));
      expect(text).not.toMatch(/"key"|keyHash|key_hash/);
    }
  });

  it('makes a key that authenticates with its role', async () => {
    const created = await createKey({ role: 'analyst' });

    expect((await api.get('/api/v1/products', as(created.key))).status).toBe(200);
    expectProblem(await api.post('/api/v1/products', {}, as(created.key)), 403, 'forbidden');
  });

  it('serves the same representation in v2', async () => {
    const created = await createKey({ role: 'fulfillment' }, 'v2');

    const v1 = await api.get(`/api/v1/api-keys/${created.id}`);
    const v2 = await api.get(`/api/v2/api-keys/${created.id}`);

    expect(v2.status).toBe(200);
    expect(v2.body).toEqual(v1.body);
    expect(created.key).toMatch(KEY_PATTERN);
  });

  it('replays an Idempotency-Key retry without the key, which is stored nowhere', async () => {
    const options = { headers: { 'Idempotency-Key': `ik-${Date.now()}` } };
    const body = { name: 'retried', role: 'analyst' };

    const first = await api.post('/api/v1/api-keys', body, options);
    const replay = await api.post('/api/v1/api-keys', body, options);

    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const { key, ...withoutKey } = first.body as CreatedKey;
    expect(replay.body).toEqual(withoutKey);
    const stored: { body: string }[] = await api.app
      .get(DataSource)
      .query('SELECT response_body::text AS body FROM idempotency_keys');
    expect(stored.some((row) => row.body?.includes(withoutKey.id))).toBe(true);
    expect(stored.some((row) => row.body?.includes(key))).toBe(false);
  });

  it.each([
    ['a customer key without customerId', { role: 'customer' }, 'customerId'],
    ['a staff key with a customerId', { role: 'operations', customerId: 'cus_1' }, 'customerId'],
    ['an unknown role', { role: 'root' }, 'role'],
    ['an expiry in the past', { role: 'analyst', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
    ['an expiry that is not a date-time', { role: 'analyst', expiresAt: 'tomorrow' }, 'expiresAt'],
    ['a customerId longer than 64', { role: 'customer', customerId: 'c'.repeat(65) }, 'customerId'],
    ['no name', { name: '', role: 'analyst' }, 'name'],
    ['an unknown field', { role: 'analyst', key: 'coa_mine' }, 'key'],
  ])('refuses %s with 422 naming the field', async (_case, body, field) => {
    const response = await api.post('/api/v1/api-keys', { name: 'bad', ...body });

    expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toContain(field);
  });
});

describe('authenticating with a key', () => {
  it('goes through passport once per key, then answers from the cache, refusals included', async () => {
    const created = await createKey({ role: 'analyst' });
    const unknown = `coa_${'u'.repeat(43)}`;
    const passport = jest.spyOn(HeaderAPIKeyStrategy.prototype, 'authenticate');

    const served = [];
    const refused = [];
    for (let i = 0; i < 3; i++) {
      served.push(await api.get('/api/v1/products', as(created.key)));
      refused.push(await api.get('/api/v1/products', as(unknown)));
    }
    const throughPassport = passport.mock.calls.length;
    passport.mockRestore();

    expect(served.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const response of refused) {
      expectProblem(response, 401, 'invalid_token');
      expect(response.headers.get('www-authenticate')).toBe(
        refused[0].headers.get('www-authenticate'),
      );
    }
    expect(refused[0].headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(throughPassport).toBe(2);
  });
});

describe('a customer key', () => {
  it('requires customerId, acts for that customer and sees only its orders', async () => {
    const customerId = customerIdFor('keyed');
    const created = await createKey({ role: 'customer', customerId });
    expect(created).toMatchObject({ role: 'customer', customerId });
    const product = await createProduct(api);
    await api.request('PUT', `/api/v1/inventory/${product.sku}`, {
      body: { quantityOnHand: 5 },
    });
    const othersOrder = await api.post('/api/v1/orders', {
      customerId: customerIdFor('other'),
      lines: [{ sku: product.sku, quantity: 1 }],
      shippingAddress: addressBody(),
    });

    const own = await api.post(
      '/api/v1/orders',
      { lines: [{ sku: product.sku, quantity: 1 }], shippingAddress: addressBody() },
      as(created.key),
    );
    const list = await api.get('/api/v1/orders?limit=100', as(created.key));
    const foreign = await api.get(`/api/v1/orders/${othersOrder.body.id}`, as(created.key));

    expect(own.status).toBe(201);
    expect(own.body.customerId).toBe(customerId);
    expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([own.body.id]);
    expectProblem(foreign, 404, 'not_found');
    expectProblem(await api.get('/api/v1/api-keys', as(created.key)), 403, 'forbidden');
  });
});

describe('revoking a key', () => {
  it('answers 204, and the key is 401 invalid_token at once, gone from reads, a second DELETE 404', async () => {
    const created = await createKey({ role: 'operations' });
    // in the verifier's cache now
    expect((await api.get('/api/v1/products', as(created.key))).status).toBe(200);

    const revoked = await api.request('DELETE', `/api/v1/api-keys/${created.id}`);
    const after = await api.get('/api/v1/products', as(created.key));

    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expectProblem(after, 401, 'invalid_token');
    expect(after.headers.get('www-authenticate')).toMatch(/ApiKey/);
    expectProblem(await api.get(`/api/v1/api-keys/${created.id}`), 404, 'not_found');
    const list = await api.get('/api/v1/api-keys?limit=100');
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(created.id);
    expectProblem(await api.request('DELETE', `/api/v1/api-keys/${created.id}`), 404, 'not_found');
  });

  it('honours If-Match: a stale ETag is 412 and the key keeps working', async () => {
    const created = await createKey({ role: 'analyst' });

    const stale = await api.request('DELETE', `/api/v1/api-keys/${created.id}`, {
      headers: { 'If-Match': '"7"' },
    });
    const middle = await api.get('/api/v1/products', as(created.key));
    const current = await api.request('DELETE', `/api/v1/api-keys/${created.id}`, {
      headers: { 'If-Match': '"1"' },
    });

    expectProblem(stale, 412, 'precondition_failed');
    expect(middle.status).toBe(200);
    expect(current.status).toBe(204);
  });

  it('is 404 for a key that never existed', async () => {
    const response = await api.request(
      'DELETE',
      '/api/v1/api-keys/01890000-0000-7000-8000-000000000000',
    );

    expectProblem(response, 404, 'not_found');
  });
});

describe('an expiring key', () => {
  it('works until expiresAt, then is 401 invalid_token (also while cached), and still listed', async () => {
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const created = await createKey({ role: 'analyst', expiresAt });
    expect(created.expiresAt).toBe(expiresAt);

    const before = await api.get('/api/v1/products', as(created.key));
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 100));
    const after = await api.get('/api/v1/products', as(created.key));

    expect(before.status).toBe(200);
    expectProblem(after, 401, 'invalid_token');
    expect((await api.get(`/api/v1/api-keys/${created.id}`)).body.expiresAt).toBe(expiresAt);
  });
});

describe('usage', () => {
  const usageOf = async (id: string, query = '') => {
    const response = await api.get(`/api/v1/api-keys/${id}/usage${query}`);
    expect(response.status).toBe(200);
    return response.body as {
      from: string;
      to: string;
      data: { hour: string; requests: number }[];
    };
  };
  const total = (data: { requests: number }[]) => data.reduce((sum, h) => sum + h.requests, 0);
  const flush = () => api.app.get(ApiKeyUsageRecorder).flush();

  it('counts every request of the key per hour, in memory, and shows them after a flush', async () => {
    const created = await createKey({ role: 'analyst' });
    const lookups = jest.spyOn(api.app.get(ApiKeysRepository), 'findUsableByHash');
    const writes = jest.spyOn(api.app.get(ApiKeyUsageRepository), 'add');

    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await api.get('/api/v1/products', as(created.key))).status);
    }
    // refused for want of the permission: still a use of the key
    statuses.push((await api.get('/api/v1/api-keys', as(created.key))).status);
    const lookupsMade = lookups.mock.calls.length;
    const writesMade = writes.mock.calls.length;
    lookups.mockRestore();
    writes.mockRestore();
    await flush();
    const usage = await usageOf(created.id);

    expect(statuses).toEqual([200, 200, 200, 200, 403]);
    // one lookup to verify the key, then the cache; no write per request (a timed flush may run)
    expect(lookupsMade).toBe(1);
    expect(writesMade).toBeLessThanOrEqual(1);
    expect(total(usage.data)).toBe(5);
    for (const { hour, requests } of usage.data) {
      expect(Date.parse(hour) % HOUR_MS).toBe(0);
      expect(Date.now() - Date.parse(hour)).toBeLessThan(2 * HOUR_MS);
      expect(requests).toBeGreaterThan(0);
    }
    expect(Date.parse(usage.to) - Date.parse(usage.from)).toBeGreaterThanOrEqual(7 * 24 * HOUR_MS);
  });

  it('adds later flushes to what is stored (upsert), in the same hour row', async () => {
    const created = await createKey({ role: 'analyst' });
    for (let i = 0; i < 2; i++) await api.get('/api/v1/products', as(created.key));
    await flush();
    for (let i = 0; i < 3; i++) await api.get('/api/v1/products', as(created.key));
    await flush();
    await flush(); // nothing pending: writes nothing

    const usage = await usageOf(created.id);

    expect(total(usage.data)).toBe(5);
    expect(usage.data.length).toBeLessThanOrEqual(2); // two only across an hour boundary
  });

  it('keeps every count when requests arrive while a flush runs', async () => {
    const created = await createKey({ role: 'analyst' });

    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        await api.get('/api/v1/products', as(created.key));
        if (i % 4 === 0) await flush();
      }),
    );
    await flush();

    expect(total((await usageOf(created.id)).data)).toBe(12);
  });

  it('takes from and to, and lists only hours with requests', async () => {
    const created = await createKey({ role: 'analyst' });
    await api.get('/api/v1/products', as(created.key));
    await flush();
    const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const iso = (ms: number) => new Date(ms).toISOString();

    const around = await usageOf(
      created.id,
      `?from=${iso(hour - 3 * HOUR_MS + 1234)}&to=${iso(hour + HOUR_MS)}`,
    );
    const before = await usageOf(created.id, `?from=${iso(hour - 5 * HOUR_MS)}&to=${iso(hour)}`);

    expect(around.from).toBe(iso(hour - 3 * HOUR_MS)); // rounded down to its hour
    expect(around.to).toBe(iso(hour + HOUR_MS));
    expect(total(around.data)).toBe(1);
    expect(before.data.filter((h) => Date.parse(h.hour) >= hour)).toEqual([]);
  });

  it.each([
    ['from after to', '?from=2026-11-22T10:00:00Z&to=2026-11-22T09:00:00Z', 'from'],
    ['more than 31 days', '?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z', 'to'],
    ['a date that is not RFC 3339', '?from=yesterday', 'from'],
    ['an unknown parameter', '?hours=24', 'hours'],
  ])('refuses %s with 400', async (_case, query, field) => {
    const created = await createKey({ role: 'analyst' });

    const response = await api.get(`/api/v1/api-keys/${created.id}/usage${query}`);

    expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toContain(field);
  });

  it('says which bound a period too long breaks: from before the default to, or to after from', async () => {
    const created = await createKey({ role: 'analyst' });
    const usage = (query: string) => api.get(`/api/v1/api-keys/${created.id}/usage${query}`);

    const fromOnly = expectProblem(await usage('?from=2000-01-01T00:00:00Z'), 400, 'bad_request');
    const both = expectProblem(
      await usage('?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z'),
      400,
      'bad_request',
    );

    expect(fromOnly.errors).toEqual([
      { field: 'from', message: 'must be at most 31 days before to (default: now)' },
    ]);
    expect(both.errors).toEqual([{ field: 'to', message: 'must be at most 31 days after from' }]);
  });

  it('is 404 for an unknown or revoked key', async () => {
    const created = await createKey({ role: 'analyst' });
    await api.request('DELETE', `/api/v1/api-keys/${created.id}`);

    expectProblem(await api.get(`/api/v1/api-keys/${created.id}/usage`), 404, 'not_found');
    expectProblem(
      await api.get('/api/v1/api-keys/01890000-0000-7000-8000-000000000000/usage'),
      404,
      'not_found',
    );
  });
});

describe('the bootstrap key', () => {
  const bootstrapRow = async () => {
    const rows: { prefix: string; version: number }[] = await api.app
      .get(DataSource)
      .query('SELECT prefix, version FROM api_keys WHERE key_hash = $1', [sha256(ADMIN_KEY)]);
    return rows[0];
  };

  it('shows four characters of a key the operator chose, not ten', async () => {
    const response = await api.get('/api/v1/api-keys?limit=100');

    const bootstrap = (response.body.data as CreatedKey[]).find((k) => k.name === 'bootstrap');
    expect(bootstrap?.prefix).toBe(ADMIN_KEY.slice(0, 4));
  });

  it('gives a key stored with a longer prefix the short one at start-up, as a change', async () => {
    await api.app
      .get(DataSource)
      .query('UPDATE api_keys SET prefix = $1 WHERE key_hash = $2', [
        ADMIN_KEY.slice(0, 10),
        sha256(ADMIN_KEY),
      ]);
    const before = await bootstrapRow();
    const keys = api.app.get(ApiKeysRepository);

    await keys.ensure(ADMIN_KEY, 'bootstrap', 'admin');
    const after = await bootstrapRow();
    await keys.ensure(ADMIN_KEY, 'bootstrap', 'admin');

    expect(after).toEqual({ prefix: ADMIN_KEY.slice(0, 4), version: before.version + 1 });
    expect(await bootstrapRow()).toEqual(after);
  });
});

describe('the api-keys collection', () => {
  it('filters by role and customerId and pages with a cursor', async () => {
    const customerId = customerIdFor('filter');
    const a = await createKey({ role: 'customer', customerId });
    const b = await createKey({ role: 'customer', customerId });

    const byCustomer = await api.get(`/api/v2/api-keys?customerId=${customerId}&limit=1`);
    const next = await fetch(byCustomer.body.pagination.next, {
      headers: { 'X-API-Key': 'test-admin-key-0123456789' },
    });
    const byRole = await api.get('/api/v1/api-keys?role=customer&limit=100');

    expect(byCustomer.body.pagination.total).toBe(2);
    expect(byCustomer.body.data.map((k: { id: string }) => k.id)).toEqual([b.id]);
    expect(((await next.json()) as { data: { id: string }[] }).data.map((k) => k.id)).toEqual([
      a.id,
    ]);
    for (const key of byRole.body.data) expect(key.role).toBe('customer');
    expectProblem(await api.get('/api/v1/api-keys?role=root'), 400, 'bad_request');
  });
});

// Last: it starts and stops a second app, whose API-key strategy then stays registered in
// passport's process-wide registry.
describe('shutting down', () => {
  it('flushes pending usage before the database closes', async () => {
    const other = await startTestApp({ RATE_LIMIT_PER_HOUR: '1000000' });
    const writes = jest.spyOn(other.app.get(ApiKeyUsageRepository), 'add');
    const created = await other.post('/api/v1/api-keys', { name: 'bye', role: 'analyst' });
    for (let i = 0; i < 3; i++) {
      await other.get('/api/v1/products', as((created.body as CreatedKey).key));
    }

    await other.close();

    const written = writes.mock.calls.flatMap(([counts]) => counts);
    const ours = written.filter((c) => c.apiKeyId === (created.body as CreatedKey).id);
    expect(ours.reduce((sum, c) => sum + c.requests, 0)).toBe(3);
    await expect(writes.mock.results.at(-1)?.value).resolves.toBeUndefined();
  });
});
