import { ProductsService } from '../src/products/products.service';
import { createProduct } from './support/factories';
import { parseAnswer, rawExchange } from './support/raw-http';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/**
 * API.md §1: every request leaves one JSON log line carrying its X-Request-Id, and no
 * credential ever reaches the log.
 */

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  route?: string;
  statusCode?: number;
  responseTime?: number;
  principal?: { subject: string; kind: string; role: string };
  err?: { message: string; stack: string };
}

const BEARER_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsb2ctdGVzdCJ9.not-a-valid-signature';
const COOKIE_SECRET = 'session-cookie-secret-42';
const QUERY_SECRETS = ['query-access-token-43', 'authorization-code-44', 'client-secret-45'];

let api: TestApp;
const output: string[] = [];

beforeAll(async () => {
  // LOG_LEVEL=info makes Nest list every route at boot, on stdout: not worth showing
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    api = await startTestApp(
      { LOG_LEVEL: 'info' },
      { logDestination: { write: (chunk) => output.push(chunk) } },
    );
  } finally {
    stdout.mockRestore();
  }
});

afterAll(async () => {
  await api?.close();
});

function lines(): LogLine[] {
  return output
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);
}

/** The log lines of the request `requestId`, once its line has been written. */
async function linesOf(requestId: string | null): Promise<LogLine[]> {
  // the line is written when the response has finished, which may trail the client a little
  for (let waited = 0; waited < 2000; waited += 20) {
    const found = lines().filter((line) => line.reqId === requestId);
    if (found.length > 0) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [];
}

describe('request log', () => {
  it('writes a line with the request id for bytes the HTTP parser refused', async () => {
    const answer = parseAnswer(
      await rawExchange(
        api.baseUrl,
        'FOO /api/v1/products?api_key=x HTTP/1.1\r\nHost: a\r\nX-Request-Id: log-parser-1\r\n\r\n',
      ),
    );

    expect(answer.status).toBe(400);
    const found = await linesOf('log-parser-1');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'FOO',
      url: '/api/v1/products',
      statusCode: 400,
    });
  });

  it('writes one line per request with its id, route, status, latency and principal', async () => {
    const product = await createProduct(api);

    const response = await api.get(`/api/v1/products/${product.id}`, {
      headers: { 'X-Request-Id': 'log-test-1' },
    });

    expect(response.headers.get('x-request-id')).toBe('log-test-1');
    const found = await linesOf('log-test-1');
    expect(found).toHaveLength(1);
    const [line] = found;
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'GET',
      url: `/api/v1/products/${product.id}`,
      route: '/api/v1/products/:id',
      statusCode: 200,
      principal: { kind: 'api_key', role: 'admin' },
    });
    expect(line.principal?.subject).toMatch(/^api_key:[0-9a-f-]{36}$/);
    expect(typeof line.responseTime).toBe('number');
    expect(line.responseTime).toBeGreaterThanOrEqual(0);
  });

  it('logs the generated request id of a request that sent none, without a principal', async () => {
    const response = await api.get('/api/v1/products', { auth: false });

    expect(response.status).toBe(401);
    const requestId = response.headers.get('x-request-id');
    const [line] = await linesOf(requestId);
    expect(line).toMatchObject({ level: 30, reqId: requestId, statusCode: 401 });
    expect(line).not.toHaveProperty('principal');
  });

  it('leaves out the route of a request no route matched', async () => {
    const response = await api.get('/api/v1/no-such-route');

    expect(response.status).toBe(404);
    const [line] = await linesOf(response.headers.get('x-request-id'));
    expect(line).toMatchObject({ statusCode: 404, url: '/api/v1/no-such-route' });
    expect(line).not.toHaveProperty('route');
  });

  it('logs a request whose URL the router refused before any route', async () => {
    const response = await api.get('/api/v1/products/%zz', {
      headers: { 'X-Request-Id': 'log-bad-url' },
    });

    expect(response.status).toBe(400);
    const found = await linesOf('log-bad-url');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'GET',
      url: '/api/v1/products/%zz',
      statusCode: 400,
    });
    expect(found[0]).not.toHaveProperty('route');
  });

  it('logs the requests the built-in authorization server answers', async () => {
    const response = await api.get('/.well-known/openid-configuration', { auth: false });

    expect(response.status).toBe(200);
    const found = await linesOf(response.headers.get('x-request-id'));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ level: 30, statusCode: 200, method: 'GET' });
  });

  it.each([
    ['GET', '/oauth/jwks', 200, '/oauth/jwks'],
    [
      'GET',
      '/.well-known/oauth-authorization-server?probe=1',
      200,
      '/.well-known/oauth-authorization-server',
    ],
    ['GET', '/oauth/auth/some-uid', 400, '/oauth/auth/:uid'],
    ['DELETE', '/oauth/jwks', 405, undefined],
    ['GET', '/oauth/nope', 404, undefined],
  ])(
    'logs %s %s as the client sent it, not as the authorization server rewrote it, with its route',
    async (method, url, status, route) => {
      const response = await api.request(method, url, { auth: false });

      expect(response.status).toBe(status);
      const found = await linesOf(response.headers.get('x-request-id'));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ method, url, statusCode: status });
      expect(found[0].route).toBe(route);
    },
  );

  it('logs a server error at error level with the error', async () => {
    const product = await createProduct(api);
    jest
      .spyOn(api.app.get(ProductsService), 'get')
      .mockRejectedValueOnce(new Error('simulated failure'));

    const response = await api.get(`/api/v1/products/${product.id}`);

    expect(response.status).toBe(500);
    const found = await linesOf(response.headers.get('x-request-id'));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      level: 50,
      msg: 'request failed',
      statusCode: 500,
      err: { message: 'simulated failure' },
    });
    expect(found[0].err?.stack).toContain('simulated failure');
  });

  it('redacts credential headers in anything else logged with them', () => {
    const log = api.app.getHttpAdapter().getInstance().log;

    log.warn(
      {
        headers: { authorization: `Bearer ${BEARER_TOKEN}`, accept: 'application/json' },
        request: { headers: { 'x-api-key': ADMIN_KEY, cookie: `session=${COOKIE_SECRET}` } },
        req: {
          url: `/api/v1/products?token=${BEARER_TOKEN}`,
          headers: { authorization: ADMIN_KEY },
        },
        response: { status: 401, headers: { 'set-cookie': `session=${COOKIE_SECRET}` } },
        res: { headers: { 'set-cookie': `session=${COOKIE_SECRET}` } },
        error: { headers: { 'proxy-authorization': `Basic ${COOKIE_SECRET}` } },
      },
      'diagnostic',
    );
    log.error({ err: { message: 'upstream refused', headers: { 'x-api-key': ADMIN_KEY } } }, 'e');

    const diagnostic = lines().find((line) => line.msg === 'diagnostic');
    expect(diagnostic).toMatchObject({
      headers: { authorization: '[Redacted]', accept: 'application/json' },
      request: { headers: { 'x-api-key': '[Redacted]', cookie: '[Redacted]' } },
      req: { url: '/api/v1/products?token=[Redacted]' },
      response: { status: 401, headers: { 'set-cookie': '[Redacted]' } },
      error: { headers: { 'proxy-authorization': '[Redacted]' } },
    });
    expect(lines().find((line) => line.msg === 'e')?.err).toMatchObject({
      headers: { 'x-api-key': '[Redacted]' },
    });
    const written = output.join('');
    for (const secret of [ADMIN_KEY, BEARER_TOKEN, COOKIE_SECRET]) {
      expect(written).not.toContain(secret);
    }
  });

  it('never writes a credential, in headers or in the query string', async () => {
    const [accessToken, code, clientSecret] = QUERY_SECRETS;
    const query = `?access_token=${accessToken}&limit=1&code=${code}&client_secret=${clientSecret}`;

    const withKey = await api.get(`/api/v1/products${query}`, {
      headers: {
        Cookie: `session=${COOKIE_SECRET}`,
        'Proxy-Authorization': `Basic ${COOKIE_SECRET}`,
      },
    });
    const withToken = await api.get('/api/v1/products', {
      auth: false,
      headers: { Authorization: `Bearer ${BEARER_TOKEN}` },
    });

    expect(withToken.status).toBe(401);
    const [keyLine] = await linesOf(withKey.headers.get('x-request-id'));
    expect(keyLine.url).toBe(
      '/api/v1/products?access_token=[Redacted]&limit=1&code=[Redacted]&client_secret=[Redacted]',
    );
    await linesOf(withToken.headers.get('x-request-id'));
    const everything = output.join('');
    for (const secret of [ADMIN_KEY, BEARER_TOKEN, COOKIE_SECRET, ...QUERY_SECRETS]) {
      expect(everything).not.toContain(secret);
    }
  });

  it('writes nothing but the one line per request', () => {
    const requestLines = lines().filter((line) => line.reqId !== undefined);
    expect(requestLines.every((line) => /^request (completed|failed)$/.test(line.msg))).toBe(true);
    const perRequest = new Map<string, number>();
    for (const line of requestLines) {
      perRequest.set(line.reqId!, (perRequest.get(line.reqId!) ?? 0) + 1);
    }
    expect([...perRequest.values()].every((n) => n === 1)).toBe(true);
  });
});
