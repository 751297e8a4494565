import { ApiKeyVerifier } from '../src/auth/api-keys/api-key-verifier';
import { expectProblem } from './support/problem';
import { startSharedDatabaseApps, SharedDatabaseApps } from './support/shared-database-apps';
import type { RequestOptions, TestApp } from './support/test-app';

/**
 * DESIGN.md §5: instances cache verified keys, so a revocation has to reach every
 * instance's cache. Two instances on one database and one Redis: a key revoked through A
 * is refused by B within seconds, because A publishes the revoked hash and B evicts it.
 * Without Redis, B keeps its cached verdict until the cache TTL (30 s) runs out; that case
 * is the control showing the eviction really comes from Redis.
 *
 * Passport's strategy registry is process-wide (see shared-database-apps.ts), so besides
 * HTTP answers the tests ask each instance's own ApiKeyVerifier, where its cache lives.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const ENV = { RATE_LIMIT_PER_HOUR: '1000000' };
const as = (key: string): RequestOptions => ({ auth: false, headers: { 'X-API-Key': key } });

async function createKey(api: TestApp): Promise<{ id: string; key: string }> {
  const response = await api.post('/api/v1/api-keys', { name: 'revocation test', role: 'analyst' });
  if (response.status !== 201) throw new Error(`key not created: ${response.text}`);
  return response.body as { id: string; key: string };
}

/** Polls `check` every 50 ms until it holds or `ms` pass; returns the time it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - start;
}

describe('two instances on one Redis', () => {
  let shared: SharedDatabaseApps;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    shared = await startSharedDatabaseApps(2, { ...ENV, REDIS_URL });
    [a, b] = shared.apps;
  });

  afterAll(async () => {
    await shared?.close();
  });

  it('refuses on B, within seconds, a key that was revoked on A while B had it cached', async () => {
    const { id, key } = await createKey(a);
    // Both instances have verified the key and cache it.
    expect((await b.get('/api/v1/products', as(key))).status).toBe(200);
    expect((await a.get('/api/v1/products', as(key))).status).toBe(200);
    expect(await a.app.get(ApiKeyVerifier).verify(key)).toMatchObject({ apiKeyId: id });
    expect(await b.app.get(ApiKeyVerifier).verify(key)).toMatchObject({ apiKeyId: id });

    const revoked = await a.request('DELETE', `/api/v1/api-keys/${id}`);
    expect(revoked.status).toBe(204);

    // on A at once: it evicted the key before answering
    expect(await a.app.get(ApiKeyVerifier).verify(key)).toBeNull();
    const took = await within(
      3_000,
      async () => (await b.app.get(ApiKeyVerifier).verify(key)) === null,
    );
    expect(took).toBeLessThan(3_000);
    expectProblem(await b.get('/api/v1/products', as(key)), 401, 'invalid_token');
    expectProblem(await a.get('/api/v1/products', as(key)), 401, 'invalid_token');
  });

  it('shows a key created on one instance and revoked on the other as gone on both', async () => {
    const { id } = await createKey(b);

    expect((await a.get(`/api/v2/api-keys/${id}`)).status).toBe(200);
    expect((await a.request('DELETE', `/api/v1/api-keys/${id}`)).status).toBe(204);

    expectProblem(await b.get(`/api/v1/api-keys/${id}`), 404, 'not_found');
    expectProblem(await b.request('DELETE', `/api/v1/api-keys/${id}`), 404, 'not_found');
  });
});

describe('two instances without Redis (control)', () => {
  let shared: SharedDatabaseApps;

  beforeAll(async () => {
    shared = await startSharedDatabaseApps(2, ENV);
  });

  afterAll(async () => {
    await shared?.close();
  });

  it('lets B keep a key revoked on A until its cache entry expires (at most 30 s)', async () => {
    const [a, b] = shared.apps;
    const { id, key } = await createKey(a);
    expect(await b.app.get(ApiKeyVerifier).verify(key)).toMatchObject({ apiKeyId: id });

    expect((await a.request('DELETE', `/api/v1/api-keys/${id}`)).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(await a.app.get(ApiKeyVerifier).verify(key)).toBeNull();
    // Nothing told B: its cached verdict stands (the documented bound without Redis).
    expect(await b.app.get(ApiKeyVerifier).verify(key)).toMatchObject({ apiKeyId: id });
  });
});
