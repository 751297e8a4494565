import { productBody } from './support/factories';
import { expectProblem } from './support/problem';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/** API.md §9: CORS_ORIGINS is the allowlist; any other Origin is 403 origin_not_allowed. */

const ALLOWED = 'https://shop.example.com';
const ALSO_ALLOWED = 'http://localhost:5173';
const FOREIGN = 'https://evil.example.net';

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp({ CORS_ORIGINS: `${ALLOWED}, ${ALSO_ALLOWED}/` });
});

afterAll(async () => {
  await api?.close();
});

const listOf = (value: string | null) => (value ?? '').split(/\s*,\s*/).filter(Boolean);
const lower = (values: string[]) => values.map((v) => v.toLowerCase());

function preflight(origin: string, path = '/api/v1/products', method = 'POST') {
  return api.request('OPTIONS', path, {
    auth: false,
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'x-api-key, content-type, idempotency-key',
    },
  });
}

function corsHeaderNames(response: ApiResponse): string[] {
  return [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
}

function expectVaryOrigin(response: ApiResponse) {
  expect(lower(listOf(response.headers.get('vary')))).toContain('origin');
}

describe('an allowed origin', () => {
  it.each([[ALLOWED], [ALSO_ALLOWED]])(
    'gets a 204 preflight from %s with the methods, headers and max age',
    async (origin) => {
      const response = await preflight(origin);

      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(listOf(response.headers.get('access-control-allow-methods'))).toEqual(
        expect.arrayContaining(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
      );
      expect(lower(listOf(response.headers.get('access-control-allow-headers')))).toEqual(
        expect.arrayContaining([
          'x-api-key',
          'authorization',
          'content-type',
          'if-match',
          'if-none-match',
          'idempotency-key',
          'x-request-id',
        ]),
      );
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(response.headers.has('access-control-allow-credentials')).toBe(false);
      expectVaryOrigin(response);
    },
  );

  it.each([['/oauth/token'], ['/oauth/jwks'], ['/.well-known/openid-configuration']])(
    "gets a 204 preflight on the authorization server's %s too",
    async (path) => {
      const response = await preflight(ALLOWED, path);

      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    },
  );

  it('is answered before authentication: a preflight carries no credentials', async () => {
    const response = await preflight(
      ALLOWED,
      '/api/v2/products/01890000-0000-7000-8000-000000000000',
      'PATCH',
    );

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('gets the origin and the exposed headers on an actual request', async () => {
    const response = await api.get('/api/v1/products', { headers: { Origin: ALLOWED } });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(lower(listOf(response.headers.get('access-control-expose-headers')))).toEqual(
      expect.arrayContaining(
        lower([
          'ETag',
          'Location',
          'Link',
          'RateLimit',
          'RateLimit-Policy',
          'WWW-Authenticate',
          'Allow',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'Retry-After',
          'X-Request-Id',
          'Deprecation',
          'Sunset',
          'Idempotent-Replayed',
        ]),
      ),
    );
    expect(lower(listOf(response.headers.get('vary')))).toEqual(
      expect.arrayContaining(['origin', 'authorization', 'x-api-key']),
    );
  });

  it('gets the CORS headers on an error answer too, so the page can read the problem', async () => {
    const response = await api.get('/api/v1/products', {
      auth: false,
      headers: { Origin: ALLOWED },
    });

    expectProblem(response, 401, 'unauthenticated');
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it.each([
    ['a malformed percent-encoding', '/api/v1/products/%zz', 400, 'bad_request'],
    ['an over-long id', `/api/v1/products/${'A'.repeat(300)}`, 404, 'not_found'],
  ])(
    'gets the CORS headers on %s, which the router refuses before any route',
    async (_name, path, status, code) => {
      const response = await api.get(path, { headers: { Origin: ALLOWED } });

      expectProblem(response, status, code);
      expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(lower(listOf(response.headers.get('access-control-expose-headers')))).toEqual(
        expect.arrayContaining(['x-request-id', 'etag']),
      );
      expect(lower(listOf(response.headers.get('vary')))).toEqual(
        expect.arrayContaining(['origin', 'authorization', 'x-api-key']),
      );
    },
  );

  it('can create through the API', async () => {
    const response = await api.post('/api/v1/products', productBody(), {
      headers: { Origin: ALSO_ALLOWED },
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALSO_ALLOWED);
  });
});

describe('an origin that is not on the list', () => {
  it('gets 403 origin_not_allowed on a preflight, with no Access-Control-Allow-* header', async () => {
    const response = await preflight(FOREIGN);

    expectProblem(response, 403, 'origin_not_allowed');
    expect(corsHeaderNames(response)).toEqual([]);
    expectVaryOrigin(response);
  });

  it('gets 403 origin_not_allowed on an actual request even with a valid key', async () => {
    const response = await api.get('/api/v1/products', { headers: { Origin: FOREIGN } });

    expectProblem(response, 403, 'origin_not_allowed');
    expect(corsHeaderNames(response)).toEqual([]);
    // an /api answer like any other: it carries the rate-limit headers
    expect(response.headers.get('ratelimit-policy')).toMatch(/^"default";q=\d+;w=\d+$/);
  });

  it('changes nothing with a refused write', async () => {
    const body = productBody();

    const response = await api.post('/api/v1/products', body, { headers: { Origin: FOREIGN } });

    expectProblem(response, 403, 'origin_not_allowed');
    const list = await api.get('/api/v1/products?limit=100');
    expect(list.body.data.map((p: { sku: string }) => p.sku)).not.toContain(body.sku);
  });

  it.each([
    ['a look-alike with another scheme', 'http://shop.example.com'],
    ['a look-alike with another port', 'https://shop.example.com:8443'],
    ['a subdomain', 'https://api.shop.example.com'],
    ['an opaque origin', 'null'],
  ])('refuses %s', async (_name, origin) => {
    const response = await api.get('/api/v1/products', { headers: { Origin: origin } });

    expectProblem(response, 403, 'origin_not_allowed');
    expect(corsHeaderNames(response)).toEqual([]);
  });

  it('is refused on a URL the router refuses too, like on any other request', async () => {
    const response = await api.get('/api/v1/products/%zz', { headers: { Origin: FOREIGN } });

    expectProblem(response, 403, 'origin_not_allowed');
    expect(corsHeaderNames(response)).toEqual([]);
    expectVaryOrigin(response);
  });

  it('is refused outside /api as well', async () => {
    const response = await api.get('/health/live', { auth: false, headers: { Origin: FOREIGN } });

    expectProblem(response, 403, 'origin_not_allowed');
    expect(corsHeaderNames(response)).toEqual([]);
  });
});

describe('requests without a foreign Origin', () => {
  it('are not affected when they send no Origin (server to server)', async () => {
    const response = await api.get('/api/v1/products');

    expect(response.status).toBe(200);
    expect(corsHeaderNames(response)).toEqual([]);
    expectVaryOrigin(response);
  });

  it('are not affected when they come from this server itself (the docs UI)', async () => {
    const response = await api.post('/api/v1/products', productBody(), {
      headers: { Origin: api.baseUrl },
    });

    expect(response.status).toBe(201);
    expect(response.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('keep the 405 of an OPTIONS that is not a preflight', async () => {
    const response = await api.request('OPTIONS', '/api/v1/products');

    expectProblem(response, 405, 'method_not_allowed');
    expect(listOf(response.headers.get('allow'))).toEqual(expect.arrayContaining(['GET', 'POST']));
  });

  it('keep the 404 of an unknown path', async () => {
    const response = await api.request('OPTIONS', '/api/v1/no-such-collection');

    expectProblem(response, 404, 'not_found');
  });
});
