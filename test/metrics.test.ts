import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { WebhookWorker } from '../src/events/deliveries/webhook-worker';
import { Outbox } from '../src/events/outbox';
import { createProduct } from './support/factories';
import { parseAnswer, rawExchange } from './support/raw-http';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

/** API.md §12: Prometheus metrics, public, by route pattern and status. */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The value of the one sample `name{labels}` in `text`, whatever the label order. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...match[2].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('metrics', () => {
  it('counts requests by route pattern and status, without credentials', async () => {
    const product = await createProduct(api);
    expect((await api.get(`/api/v1/products/${product.id}`)).status).toBe(200);
    expect((await api.get(`/api/v1/products/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await api.get('/api/v1/no-such-route/42')).status).toBe(404);

    const response = await api.get('/metrics', { auth: false });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = response.text;
    expect(text).toContain('# TYPE http_requests_total counter');
    const byId = { method: 'GET', route: '/api/v1/products/:id' };
    expect(sample(text, 'http_requests_total', { ...byId, status: '200' })).toBe(1);
    expect(sample(text, 'http_requests_total', { ...byId, status: '404' })).toBe(1);
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
    // the URL itself never becomes a label
    expect(text).not.toContain(product.id);
    expect(text).not.toContain('no-such-route');

    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(
      sample(text, 'http_request_duration_seconds_bucket', { ...byId, status: '200', le: '+Inf' }),
    ).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { ...byId, status: '404' })).toBe(1);

    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('# TYPE webhook_deliveries_total counter');
    expect(sample(text, 'db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
  });

  it("labels the authorization server's answers by their route pattern too", async () => {
    const jwks = await api.get('/oauth/jwks', { auth: false });
    const discovery = await api.get('/.well-known/openid-configuration', { auth: false });
    const interaction = await api.get('/oauth/interaction/no-such-uid', { auth: false });
    const wrongMethod = await api.request('DELETE', '/oauth/jwks', { auth: false });
    expect([jwks.status, discovery.status, wrongMethod.status]).toEqual([200, 200, 405]);

    const text = (await api.get('/metrics', { auth: false })).text;

    const count = (method: string, route: string, status: number) =>
      sample(text, 'http_requests_total', { method, route, status: String(status) });
    expect(count('GET', '/oauth/jwks', 200)).toBe(1);
    expect(count('GET', '/.well-known/openid-configuration', 200)).toBe(1);
    expect(count('GET', '/oauth/interaction/:uid', interaction.status)).toBe(1);
    // a method the route does not serve is no route's, as for the API's own routes
    expect(count('DELETE', 'unmatched', 405)).toBe(1);
    expect(text).not.toContain('no-such-uid');
  });

  it('counts requests the HTTP parser refused, under route unmatched, any odd method as other', async () => {
    const refused = (method: string) => ({ method, route: 'unmatched', status: '400' });
    const count = async (method: string) =>
      sample(
        (await api.get('/metrics', { auth: false })).text,
        'http_requests_total',
        refused(method),
      ) ?? 0;
    const before = { GET: await count('GET'), other: await count('other') };

    const answers = [
      await rawExchange(
        api.baseUrl,
        'GET /api/v1/products HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      ),
      await rawExchange(api.baseUrl, 'FROB /api/v1/products HTTP/1.1\r\nHost: x\r\n\r\n'),
    ];

    expect(answers.map((answer) => parseAnswer(answer).status)).toEqual([400, 400]);
    expect(await count('GET')).toBe(before.GET + 1);
    expect(await count('other')).toBe(before.other + 1);
    expect((await api.get('/metrics', { auth: false })).text).not.toContain('FROB');
  });

  it('does not count its own scrapes and is not rate-limited', async () => {
    await api.get('/metrics', { auth: false });
    const response = await api.get('/metrics', { auth: false });

    expect(response.text).not.toMatch(/route="\/metrics"/);
    expect(response.headers.has('ratelimit')).toBe(false);
    expect(response.headers.has('x-ratelimit-limit')).toBe(false);
  });

  it('is not in the OpenAPI documents', async () => {
    for (const version of ['v1', 'v2']) {
      const document = await api.get(`/docs/${version}/openapi.json`, { auth: false });
      expect(document.status).toBe(200);
      expect(Object.keys(document.body.paths)).not.toContain('/metrics');
    }
  });

  it('refuses a write to /metrics with 405 and Allow', async () => {
    const response = await api.request('POST', '/metrics', { auth: false, body: {} });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/GET/);
  });
});

describe('webhook delivery metrics', () => {
  let hooks: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    hooks = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });

  afterAll(async () => {
    await hooks?.close();
    await receiver?.close();
  });

  it('counts each recorded attempt by its outcome', async () => {
    for (const path of ['/ok', '/gone']) {
      const response = await hooks.post('/api/v1/webhook-endpoints', {
        url: receiver.url(path),
        events: ['*'],
      });
      expect(response.status).toBe(201);
    }
    receiver.script('/gone', () => ({ status: 410 }));
    const outbox = hooks.app.get(Outbox);
    await hooks.app.get(DataSource).transaction((manager) =>
      outbox.record(manager, 'order.created', {
        id: randomUUID(),
        status: 'pending',
        version: 1,
      }),
    );

    const round = await hooks.app.get(WebhookWorker).runOnce();
    expect(round.attempted).toBe(2);

    const text = (await hooks.get('/metrics', { auth: false })).text;
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(1);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'dead' })).toBe(1);
  });
});

describe('DATABASE_POOL_SIZE', () => {
  let small: TestApp;

  beforeAll(async () => {
    small = await startTestApp({ DATABASE_POOL_SIZE: '2' });
  });

  afterAll(async () => {
    await small?.close();
  });

  it('caps the connections a process opens: past the cap, requests wait for one', async () => {
    await createProduct(small);
    // the embedded database is one session: its pool is one connection whatever the setting
    const cap = process.env.DATABASE_URL ? 2 : 1;
    const held = await Promise.all(
      Array.from({ length: cap }, async () => {
        const runner = small.app.get(DataSource).createQueryRunner();
        await runner.connect();
        return runner;
      }),
    );
    const pool = async () => {
      const text = (await small.get('/metrics', { auth: false })).text;
      return {
        total: sample(text, 'db_pool_connections', { state: 'total' }),
        waiting: sample(text, 'db_pool_connections', { state: 'waiting' }),
      };
    };
    let answers: Promise<ApiResponse[]> | undefined;
    let seen: { total?: number; waiting?: number } = {};
    try {
      answers = Promise.all(
        Array.from({ length: 12 }, () => small.get('/api/v2/products?limit=5')),
      );
      for (let i = 0; i < 100 && !seen.waiting; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = await pool();
      }
    } finally {
      await Promise.all(held.map((runner) => runner.release()));
    }

    expect(seen.total).toBe(cap);
    expect(seen.waiting).toBeGreaterThan(0);
    expect((await answers).map((a) => a.status)).toEqual(Array(12).fill(200));
  });
});
