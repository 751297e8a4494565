import { startTestApp, TestApp } from './support/test-app';

/** API.md §12: liveness and readiness, public, for orchestrators and load balancers. */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

describe('health', () => {
  it('answers /health/live with 200 {status: ok} without credentials', async () => {
    const response = await api.get('/health/live', { auth: false });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json;\s*charset=utf-8$/i);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('answers /health/ready with 200 and the database up while the database answers', async () => {
    const response = await api.get('/health/ready', { auth: false });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({
      status: 'ok',
      info: { database: { status: 'up' } },
      error: {},
    });
  });

  it('answers the health checks with the transport headers of every answer', async () => {
    const response = await api.get('/health/live', {
      auth: false,
      headers: { 'X-Request-Id': 'probe-1' },
    });

    expect(response.headers.get('x-request-id')).toBe('probe-1');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.has('x-powered-by')).toBe(false);
  });

  it('refuses a write to a health check with 405 and Allow', async () => {
    const response = await api.request('POST', '/health/ready', { auth: false, body: {} });

    expect(response.status).toBe(405);
    expect(response.body.code).toBe('method_not_allowed');
    expect((response.headers.get('allow') ?? '').split(/\s*,\s*/)).toContain('GET');
  });
});

describe('readiness with Redis configured', () => {
  it('reports Redis up when it answers', async () => {
    const withRedis = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:6379/0' });
    try {
      const response = await withRedis.get('/health/ready', { auth: false });

      expect(response.status).toBe(200);
      expect(response.body.info).toMatchObject({
        database: { status: 'up' },
        redis: { status: 'up' },
      });
    } finally {
      await withRedis.close();
    }
  });

  it('stays ready but reports Redis degraded when it is unreachable, since rate limits fall back to memory', async () => {
    const withoutRedis = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1/0' });
    try {
      const response = await withoutRedis.get('/health/ready', { auth: false });

      expect(response.status).toBe(200);
      expect(response.body.details).toMatchObject({
        database: { status: 'up' },
        redis: { status: 'degraded' },
      });
    } finally {
      await withoutRedis.close();
    }
  });
});
