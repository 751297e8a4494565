import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket, connect } from 'node:net';
import { Redis as IORedis, type Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { hashApiKey } from '../src/auth/api-keys/api-key-hash';
import { ApiKeyUsageRecorder } from '../src/auth/api-keys/api-key-usage.recorder';
import { ApiKeyUsageRepository } from '../src/auth/api-keys/api-key-usage.repository';
import { ApiKeysRepository } from '../src/auth/api-keys/api-keys.repository';
import type { Role } from '../src/auth/permissions';
import { RedisFixedWindowStore } from '../src/rate-limit/fixed-window.store';
import { closeRedisClient, createRedisClient, REDIS } from '../src/redis/redis-client';
import { productBody } from './support/factories';
import { expectProblem } from './support/problem';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/**
 * API.md §8: a budget of RATE_LIMIT_PER_HOUR requests per RATE_LIMIT_WINDOW_S per API key
 * (or client IP without credentials), in fixed windows, counted in Redis when REDIS_URL is
 * set and in memory otherwise; headers on every /api answer; 429 rate_limited past it.
 *
 * Every budget here is fresh: API keys are new rows (unique ids) and unauthenticated
 * callers come from a random IPv6 /64 (X-Forwarded-For; the app trusts its proxy), so
 * test files and parallel runs on the one Redis never share a counter.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const UUID_NOBODY_HAS = '01890000-0000-7000-8000-000000000000';

/** A client address nobody else uses: its own IPv6 /64 in the documentation range. */
const freshIp = () =>
  `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;

/**
 * A new API key of `role`: a budget of its own. The row (same id) goes into the database of
 * every app given, as instances on one database see it. It must be in all the apps alive:
 * passport keeps strategies in a process-wide registry, so the API-key strategy of the
 * app started last authenticates for every app in this process.
 */
async function newKey(apps: TestApp[], role: Role = 'admin'): Promise<{ key: string; id: string }> {
  const key = `rate-limit-test-${randomBytes(12).toString('hex')}`;
  const hash = hashApiKey(key);
  let id: string | undefined;
  for (const api of apps) {
    await api.app.get(ApiKeysRepository).ensure(key, 'rate limit test', role);
    const database = api.app.get(DataSource);
    if (id) await database.query('UPDATE api_keys SET id = $1 WHERE key_hash = $2', [id, hash]);
    else [{ id }] = await database.query('SELECT id FROM api_keys WHERE key_hash = $1', [hash]);
  }
  return { key, id: id as string };
}

const asKey = (key: string) => ({ auth: false, headers: { 'X-API-Key': key } });
const anonymous = (ip: string) => ({ auth: false, headers: { 'X-Forwarded-For': ip } });

interface Budget {
  limit: number;
  window: number;
  remaining: number;
  reset: number;
}

/** Reads both header conventions and checks they agree. */
function budgetOf(response: ApiResponse): Budget {
  const policy = /^"default";q=(\d+);w=(\d+)$/.exec(response.headers.get('ratelimit-policy') ?? '');
  const current = /^"default";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '');
  expect({ policy: policy?.[0], current: current?.[0] }).toEqual({
    policy: expect.any(String),
    current: expect.any(String),
  });
  const budget = {
    limit: Number(policy![1]),
    window: Number(policy![2]),
    remaining: Number(current![1]),
    reset: Number(current![2]),
  };
  expect({
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
  }).toEqual({
    limit: String(budget.limit),
    remaining: String(budget.remaining),
    reset: String(budget.reset),
  });
  return budget;
}

function expectRateLimited(response: ApiResponse): Budget {
  expectProblem(response, 429, 'rate_limited');
  const budget = budgetOf(response);
  expect(budget.remaining).toBe(0);
  expect(response.headers.get('retry-after')).toBe(String(budget.reset));
  expect(budget.reset).toBeGreaterThan(0);
  return budget;
}

describe('rate limits counted in Redis', () => {
  let api: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_HOUR: '5', RATE_LIMIT_WINDOW_S: '3600', REDIS_URL };
    [api, other] = await Promise.all([startTestApp(env), startTestApp(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), other?.close()]);
  });

  const newKeyHere = (role?: Role) => newKey([api, other], role);

  it('sends the policy and what remains on a 200, counting down one per request', async () => {
    const { key } = await newKeyHere();

    const first = await api.get('/api/v1/products', asKey(key));
    const second = await api.get('/api/v2/products', asKey(key));

    expect([first.status, second.status]).toEqual([200, 200]);
    const budget = budgetOf(first);
    expect(budget).toEqual({ limit: 5, window: 3600, remaining: 4, reset: expect.any(Number) });
    expect(budget.reset).toBeGreaterThan(3590);
    expect(budget.reset).toBeLessThanOrEqual(3600);
    expect(budgetOf(second).remaining).toBe(3);
    expect(second.headers.has('retry-after')).toBe(false);
  });

  it("counts a key's error answers too, and sends the headers on them", async () => {
    const { key } = await newKeyHere();
    const analyst = await newKeyHere('analyst');

    const notFound = await api.get(`/api/v1/products/${UUID_NOBODY_HAS}`, asKey(key));
    const invalid = await api.post('/api/v1/products', { ...productBody(), price: 1 }, asKey(key));
    const forbidden = await api.post('/api/v1/products', productBody(), asKey(analyst.key));

    expectProblem(notFound, 404, 'not_found');
    expect(budgetOf(notFound).remaining).toBe(4);
    expectProblem(invalid, 422, 'validation_failed');
    expect(budgetOf(invalid).remaining).toBe(3);
    // refused by the permission check, yet counted on the key that was authenticated
    expectProblem(forbidden, 403, 'forbidden');
    expect(budgetOf(forbidden).remaining).toBe(4);
  });

  it('sends the headers on 401 and unknown-route answers, counted per client IP', async () => {
    const ip = freshIp();

    const unauthenticated = await api.get('/api/v1/products', anonymous(ip));
    const invalidKey = await api.get('/api/v1/products', {
      headers: { 'X-API-Key': 'not-a-key-of-ours-0000', 'X-Forwarded-For': ip },
      auth: false,
    });
    const unknownRoute = await api.get('/api/v1/no-such-collection', anonymous(ip));

    expectProblem(unauthenticated, 401, 'unauthenticated');
    expect(budgetOf(unauthenticated).remaining).toBe(4);
    expectProblem(invalidKey, 401, 'invalid_token');
    expect(budgetOf(invalidKey).remaining).toBe(3);
    expectProblem(unknownRoute, 404, 'not_found');
    expect(budgetOf(unknownRoute).remaining).toBe(2);
  });

  it('counts URLs the router refuses against the key they carry, else per client IP, and answers 429 past the budget', async () => {
    const ip = freshIp();
    const { key } = await newKeyHere();
    const withKey = { auth: false, headers: { 'X-API-Key': key, 'X-Forwarded-For': ip } };

    const badEncoding = await api.get('/api/v1/products/%zz', anonymous(ip));
    const longSegment = await api.get(`/api/v1/products/${'A'.repeat(300)}`, withKey);
    for (let i = 0; i < 4; i += 1) await api.get('/api/v1/products/%zz', anonymous(ip));
    const refused = await api.get(`/api/v1/products/${'A'.repeat(300)}`, anonymous(ip));
    const anotherClient = await api.get('/api/v1/products/%zz', anonymous(freshIp()));
    const keyBudget = await api.get('/api/v1/products', asKey(key));

    expectProblem(badEncoding, 400, 'bad_request');
    expect(budgetOf(badEncoding).remaining).toBe(4);
    // the key verified: its budget, not the IP's
    expectProblem(longSegment, 404, 'not_found');
    expect(budgetOf(longSegment).remaining).toBe(4);
    expectRateLimited(refused);
    // each client behind the trusted proxy has its own budget, not the proxy's
    expectProblem(anotherClient, 400, 'bad_request');
    expect(budgetOf(anotherClient).remaining).toBe(4);
    expect(budgetOf(keyBudget).remaining).toBe(3);
  });

  it('counts requests refused before authentication against the key they carry, not the IP it shares', async () => {
    const ip = freshIp();
    const { key, id } = await newKeyHere();
    const withKey = (headers: Record<string, string> = {}) => ({
      auth: false,
      headers: { 'X-API-Key': key, 'X-Forwarded-For': ip, ...headers },
    });
    // anonymous traffic behind the same address has spent the IP's budget
    for (let i = 0; i < 5; i += 1) await api.get('/api/v1/products', anonymous(ip));
    expectRateLimited(await api.get('/api/v1/products', anonymous(ip)));

    const unknownRoute = await api.get('/api/v1/no-such-collection', withKey());
    const wrongMethod = await api.request('PUT', '/api/v1/products', withKey());
    const notJson = await api.request('POST', '/api/v1/products', {
      ...withKey({ 'Content-Type': 'application/json' }),
      rawBody: '{x',
    });
    const notJsonType = await api.request('POST', '/api/v1/products', {
      ...withKey({ 'Content-Type': 'text/plain' }),
      rawBody: 'x',
    });

    expectProblem(unknownRoute, 404, 'not_found');
    expect(budgetOf(unknownRoute).remaining).toBe(4);
    expectProblem(wrongMethod, 405, 'method_not_allowed');
    expect(budgetOf(wrongMethod).remaining).toBe(3);
    expectProblem(notJson, 400, 'invalid_json');
    expect(budgetOf(notJson).remaining).toBe(2);
    expectProblem(notJsonType, 415, 'unsupported_media_type');
    expect(budgetOf(notJsonType).remaining).toBe(1);
    // and they are the key's usage, as every request it authenticates is
    await api.app.get(ApiKeyUsageRecorder).flush();
    const hour = 3_600_000;
    const usage = await api.app
      .get(ApiKeyUsageRepository)
      .hourly(id, new Date(Date.now() - hour), new Date(Date.now() + hour));
    expect(usage.reduce((sum, h) => sum + h.requests, 0)).toBe(4);
  });

  it('runs out at exactly the limit: the next request is 429 rate_limited with Retry-After', async () => {
    const { key } = await newKeyHere();

    const allowed: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await api.get('/api/v1/products', asKey(key));
      expect(response.status).toBe(200);
      allowed.push(budgetOf(response).remaining);
    }
    const refused = await api.get('/api/v1/products', asKey(key));
    const refusedWrite = await api.post('/api/v1/products', productBody(), asKey(key));

    expect(allowed).toEqual([4, 3, 2, 1, 0]);
    const budget = expectRateLimited(refused);
    expect(budget.reset).toBeLessThanOrEqual(3600);
    expectRateLimited(refusedWrite);
    const list = await api.get(`/api/v1/products?limit=100`);
    expect(list.body.data.map((p: { sku: string }) => p.sku)).not.toContain(
      (refusedWrite.body as { sku?: string }).sku,
    );
  });

  it('counts parallel requests of one key on two instances exactly: 5 served, each its own remaining, the rest 429', async () => {
    const { key } = await newKeyHere();

    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? api : other).get('/api/v1/products', asKey(key)),
      ),
    );

    const served = responses.filter((r) => r.status === 200);
    expect(served.map((r) => budgetOf(r).remaining).sort()).toEqual([0, 1, 2, 3, 4]);
    const refused = responses.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(7);
    for (const response of refused) expectRateLimited(response);
  });

  it('answers 429 instead of 401 once a client IP without credentials is past its budget', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i += 1) {
      expect((await api.get('/api/v1/products', anonymous(ip))).status).toBe(401);
    }

    const refused = await api.get('/api/v1/products', anonymous(ip));
    const anotherIp = await api.get('/api/v1/products', anonymous(freshIp()));

    expectRateLimited(refused);
    expect(refused.headers.has('www-authenticate')).toBe(false);
    expectProblem(anotherIp, 401, 'unauthenticated');
    expect(budgetOf(anotherIp).remaining).toBe(4);
  });

  it('keeps the 403 of a foreign Origin past the budget (API.md §9), preflight or not, and counts it', async () => {
    const ip = freshIp();
    const { key } = await newKeyHere();
    const foreign = { Origin: 'https://evil.example.net', 'X-Forwarded-For': ip };
    for (let i = 0; i < 5; i += 1) await api.get('/api/v1/products', asKey(key));
    for (let i = 0; i < 5; i += 1) await api.get('/api/v1/products', anonymous(ip));

    const actual = await api.get('/api/v1/products', {
      auth: false,
      headers: { ...foreign, 'X-API-Key': key },
    });
    // refused by the router, before any hook (framework-errors.ts)
    const badUrl = await api.get('/api/v1/products/%zz', {
      auth: false,
      headers: { ...foreign, 'X-API-Key': key },
    });
    const preflight = await api.request('OPTIONS', '/api/v1/products', {
      auth: false,
      headers: { ...foreign, 'Access-Control-Request-Method': 'GET' },
    });
    const withoutOrigin = await api.get('/api/v1/products', asKey(key));

    for (const refused of [actual, badUrl, preflight]) {
      expectProblem(refused, 403, 'origin_not_allowed');
      expect(budgetOf(refused).remaining).toBe(0);
      expect(refused.headers.has('retry-after')).toBe(false);
    }
    expectRateLimited(withoutOrigin);
  });

  it('gives separate API keys separate budgets', async () => {
    const first = await newKeyHere();
    const second = await newKeyHere();
    for (let i = 0; i < 5; i += 1) await api.get('/api/v1/products', asKey(first.key));

    const refused = await api.get('/api/v1/products', asKey(first.key));
    const served = await api.get('/api/v1/products', asKey(second.key));

    expectRateLimited(refused);
    expect(served.status).toBe(200);
    expect(budgetOf(served).remaining).toBe(4);
  });

  it('shares one budget between two instances on one Redis', async () => {
    const shared = await newKeyHere();

    const statuses: number[] = [];
    const remaining: number[] = [];
    for (const instance of [api, other, api, other, other]) {
      const response = await instance.get('/api/v1/products', asKey(shared.key));
      statuses.push(response.status);
      remaining.push(budgetOf(response).remaining);
    }
    const refusedHere = await api.get('/api/v1/products', asKey(shared.key));
    const refusedThere = await other.get('/api/v1/products', asKey(shared.key));

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expectRateLimited(refusedHere);
    expectRateLimited(refusedThere);
  });

  it('counts apart on an instance with another window length, whose answers announce its own window', async () => {
    const shorter = await startTestApp({
      RATE_LIMIT_PER_HOUR: '5',
      RATE_LIMIT_WINDOW_S: '120',
      REDIS_URL,
    });
    try {
      // in every app alive: each has its own database, and the API-key strategy of the
      // app started last authenticates for all of them (newKey)
      const { key } = await newKey([api, other, shorter]);
      await api.get('/api/v1/products', asKey(key));
      await api.get('/api/v1/products', asKey(key));

      const thereResponse = await shorter.get('/api/v1/products', asKey(key));
      const there = budgetOf(thereResponse);
      const here = budgetOf(await api.get('/api/v1/products', asKey(key)));

      // counted for the key, not for the client IP an unknown key falls back to
      expect(thereResponse.status).toBe(200);
      expect(there).toEqual({ limit: 5, window: 120, remaining: 4, reset: expect.any(Number) });
      expect(there.reset).toBeLessThanOrEqual(120);
      expect(here.remaining).toBe(2);
    } finally {
      await shorter.close();
    }
  });

  it('shares the budget of a client IP between instances too', async () => {
    const ip = freshIp();
    for (const instance of [api, other, api, other, api]) {
      await instance.get('/api/v1/products', anonymous(ip));
    }

    expectRateLimited(await other.get('/api/v1/products', anonymous(ip)));
  });

  it.each([['/health/live'], ['/docs/v2/openapi.json'], ['/docs/errors/rate_limited']])(
    'neither counts nor labels %s, which is outside /api',
    async (path) => {
      const ip = freshIp();

      const responses = await Promise.all(
        Array.from({ length: 7 }, () => api.get(path, anonymous(ip))),
      );

      expect(responses.map((r) => r.status)).toEqual(Array(7).fill(200));
      expect(responses[0].headers.has('ratelimit')).toBe(false);
      expect(responses[0].headers.has('x-ratelimit-limit')).toBe(false);
      expect(budgetOf(await api.get('/api/v1/products', anonymous(ip))).remaining).toBe(4);
    },
  );
});

describe('rate limits counted in Redis for a busy key (blocks of hits)', () => {
  const LIMIT = 1000;
  let api: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_HOUR: String(LIMIT), RATE_LIMIT_WINDOW_S: '3600', REDIS_URL };
    [api, other] = await Promise.all([startTestApp(env), startTestApp(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), other?.close()]);
  });

  const missing = `/api/v1/products/${UUID_NOBODY_HAS}`;
  /**
   * Counts the grants an instance asks Redis for (the store's one Redis command). ioredis
   * copies the client's commands onto each auto-pipeline and runs the command there
   * again, so only the calls made on the client itself are counted.
   */
  function grantsAskedBy(instance: TestApp): { count: () => number; restore: () => void } {
    const redis = instance.app.get<Redis & { rateLimitGrant: () => unknown }>(REDIS);
    const spy = jest.spyOn(redis, 'rateLimitGrant');
    return {
      count: () => spy.mock.contexts.filter((context) => context === redis).length,
      restore: () => spy.mockRestore(),
    };
  }

  it('counts down one per request on one instance while asking Redis a block at a time', async () => {
    const { key } = await newKey([api, other]);
    const grants = grantsAskedBy(api);

    const remaining: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 60; i += 1) {
      remaining.push(budgetOf(await api.get(missing, asKey(key))).remaining);
    }
    const elapsedMs = Date.now() - started;

    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => LIMIT - 1 - i));
    // A block lasts about a tenth of a second at the key's pace, so the grants follow the
    // time the requests took, not their number: a few hundred requests a second make
    // blocks of tens of hits, a slow machine smaller ones. The slack covers the first
    // grants, which grow from one hit to the pace (at most eightfold each).
    expect(grants.count()).toBeGreaterThan(1);
    expect(grants.count()).toBeLessThanOrEqual(Math.ceil(elapsedMs / 100) + 5);
    grants.restore();
  });

  it('serves exactly the budget across two instances under parallel load, each hit number once', async () => {
    const { key } = await newKey([api, other]);

    const responses: ApiResponse[] = [];
    // waves of parallel requests, half to each instance, 100 more than the budget
    for (let wave = 0; wave < 11; wave += 1) {
      responses.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, i) => (i % 2 ? api : other).get(missing, asKey(key))),
        )),
      );
    }

    const served = responses.filter((r) => r.status === 404);
    const refused = responses.filter((r) => r.status !== 404);
    const servedRemaining = served.map((r) => budgetOf(r).remaining);
    // exactly the budget: both instances keep getting requests, so no granted hit is left
    // unused, and no hit number is handed out twice
    expect(served).toHaveLength(LIMIT);
    expect(new Set(servedRemaining).size).toBe(LIMIT);
    for (const response of refused) expectRateLimited(response);
  });

  it('leaves the hits of a block unused when its window ends, and counts afresh', async () => {
    const short = await startTestApp({
      RATE_LIMIT_PER_HOUR: '100',
      RATE_LIMIT_WINDOW_S: '1',
      REDIS_URL,
    });
    try {
      const { key } = await newKey([api, other, short]);
      const before: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        before.push(budgetOf(await short.get(missing, asKey(key))).remaining);
      }

      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const after = budgetOf(await short.get(missing, asKey(key)));

      expect(before).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90]);
      expect(after).toEqual({ limit: 100, window: 1, remaining: 99, reset: 1 });
    } finally {
      await short.close();
    }
  });
});

describe('rate limits without REDIS_URL', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp({ RATE_LIMIT_PER_HOUR: '3', RATE_LIMIT_WINDOW_S: '2' });
  });

  afterAll(async () => {
    await api?.close();
  });

  it('counts in memory: the same headers, 429 past the budget', async () => {
    const { key } = await newKey([api]);

    const remaining: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      remaining.push(budgetOf(await api.get('/api/v1/products', asKey(key))).remaining);
    }
    const refused = await api.get('/api/v1/products', asKey(key));

    expect(remaining).toEqual([2, 1, 0]);
    const budget = expectRateLimited(refused);
    expect(budget).toEqual({ limit: 3, window: 2, remaining: 0, reset: expect.any(Number) });
    expect(budget.reset).toBeLessThanOrEqual(2);
  });

  it('starts a fresh window once the fixed window has ended', async () => {
    const { key } = await newKey([api]);
    for (let i = 0; i < 3; i += 1) await api.get('/api/v1/products', asKey(key));
    const refused = await api.get('/api/v1/products', asKey(key));
    expectRateLimited(refused);

    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const afterReset = await api.get('/api/v1/products', asKey(key));

    expect(afterReset.status).toBe(200);
    expect(budgetOf(afterReset).remaining).toBe(2);
  });
});

interface RedisRelay {
  url: string;
  /** closes every connection and stops listening, as a stopped Redis would */
  cut(): Promise<void>;
  /** stops passing bytes on, connections left open, as over a partition */
  silence(): void;
  /** passes on again, what was held back first */
  resume(): void;
  /** the Redis commands named `name` the client sent while silenced */
  sentWhileSilent(name: string): number;
}

/** A TCP relay to the real Redis that the test can cut or silence, as an outage would. */
async function startRedisRelay(): Promise<RedisRelay> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const held: { to: Socket; chunk: Buffer }[] = [];
  let silent = false;
  let sentWhileSilent = '';
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (!silent) return void to.write(chunk);
        held.push({ to, chunk });
        if (from === client) sentWhileSilent += chunk.toString('latin1');
      });
    relay(client, upstream);
    relay(upstream, client);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    silence: () => {
      silent = true;
    },
    resume: () => {
      silent = false;
      for (const { to, chunk } of held.splice(0)) to.write(chunk);
    },
    // RESP: a command's name is a bulk string, `$<length>\r\n<name>\r\n`, in any case
    sentWhileSilent: (name) =>
      sentWhileSilent.toLowerCase().split(`\r\n$${name.length}\r\n${name.toLowerCase()}\r\n`)
        .length - 1,
  };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('rate limits while Redis is unreachable', () => {
  it('serves from the start with per-instance memory counters when REDIS_URL points nowhere', async () => {
    const api = await startTestApp({
      RATE_LIMIT_PER_HOUR: '2',
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}/0`,
    });
    try {
      const { key } = await newKey([api]);

      const served = [
        await api.get('/api/v1/products', asKey(key)),
        await api.get('/api/v1/products', asKey(key)),
      ];
      const refused = await api.get('/api/v1/products', asKey(key));
      const health = await api.get('/health/live', { auth: false });

      expect(served.map((r) => r.status)).toEqual([200, 200]);
      expect(served.map((r) => budgetOf(r).remaining)).toEqual([1, 0]);
      expectRateLimited(refused);
      expect(health.status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('keeps serving, counting in memory, when Redis goes away while running', async () => {
    const relay = await startRedisRelay();
    const api = await startTestApp({ RATE_LIMIT_PER_HOUR: '3', REDIS_URL: relay.url });
    try {
      const { key } = await newKey([api]);
      const redis = api.app.get<Redis>(REDIS);
      if (redis.status !== 'ready') await once(redis, 'ready');
      const first = await api.get('/api/v1/products', asKey(key));

      await relay.cut();
      const during = [];
      for (let i = 0; i < 4; i += 1) during.push(await api.get('/api/v1/products', asKey(key)));

      expect(first.status).toBe(200);
      expect(budgetOf(first).remaining).toBe(2);
      // memory counters start from zero: three more are served, then 429
      expect(during.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(during.slice(0, 3).map((r) => budgetOf(r).remaining)).toEqual([2, 1, 0]);
      expectRateLimited(during[3]);
    } finally {
      await api.close();
      await relay.cut();
    }
  });

  it('stops asking a Redis that does not answer, and asks again once it does', async () => {
    const relay = await startRedisRelay();
    const redis = createRedisClient(relay.url);
    const direct = new IORedis(REDIS_URL);
    const prefix = `rate-limit-test:${randomBytes(6).toString('hex')}:`;
    const store = new RedisFixedWindowStore(redis, prefix, 200);
    const hit = () => store.hit('caller', 60_000, 1_000);
    try {
      if (redis.status !== 'ready') await once(redis, 'ready');
      const before = await hit();
      // a slow caller: its next grant is one hit (a grant lost to the time-out below is
      // counted in Redis all the same, as a lost INCR was)
      await new Promise((resolve) => setTimeout(resolve, 150));

      relay.silence();
      const during = [];
      for (let i = 0; i < 5; i += 1) during.push(await hit());
      const askedWhileSilent = relay.sentWhileSilent('EVALSHA') + relay.sentWhileSilent('EVAL');
      relay.resume();
      // back in Redis: a count that agrees with the one Redis keeps
      let after = await hit();
      for (let i = 0; i < 100 && after.hits !== Number(await direct.get(`${prefix}caller`)); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = await hit();
      }

      expect(before.hits).toBe(1);
      // counted in memory from the first unanswered command on, the client's time-out
      expect(during.map((count) => count.hits)).toEqual([1, 2, 3, 4, 5]);
      // only that first request asked Redis; the others did not wait on it
      expect(askedWhileSilent).toBe(1);
      expect(after.hits).toBe(Number(await direct.get(`${prefix}caller`)));
      expect(after.hits).toBeLessThan(5);
    } finally {
      await closeRedisClient(redis);
      direct.disconnect();
      await relay.cut();
    }
  });
});
