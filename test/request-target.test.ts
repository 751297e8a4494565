import { parseAnswer, rawExchange } from './support/raw-http';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/**
 * RFC 9112 §3.2 and RFC 3986 §6.2.2.2: the request target the hooks decide by (rate limit,
 * deprecation headers, links) is the one the router serves, whatever form it came in;
 * the Host links are built on is a host.
 */
let api: TestApp;
let port: string;

beforeAll(async () => {
  api = await startTestApp({ RATE_LIMIT_PER_HOUR: '1000', API_V1_SUNSET: '2027-06-30' });
  port = new URL(api.baseUrl).port;
});

afterAll(async () => {
  await api?.close();
});

const get = (target: string, headers = `Host: 127.0.0.1:${port}\r\nX-API-Key: ${ADMIN_KEY}\r\n`) =>
  rawExchange(api.baseUrl, `GET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`).then(
    parseAnswer,
  );

const remaining = (answer: { headers: Map<string, string> }) =>
  Number(/;r=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1]);

describe('a path with percent-encoded letters', () => {
  it.each([
    ['/%61pi/v1/products?limit=1'],
    ['/api/v%31/products?limit=1'],
    ['/api/v1/%70roducts?limit=1'],
  ])(
    '%s is counted against the rate limit and carries its headers, as its plain form',
    async (target) => {
      const before = remaining(await get('/api/v1/products?limit=1'));
      const encoded = await get(target);
      const after = remaining(await get('/api/v1/products?limit=1'));

      expect(encoded.status).toBe(200);
      expect(encoded.headers.get('deprecation')).toBeDefined();
      expect(encoded.body.pagination.next ?? '').not.toContain('%');
      expect(remaining(encoded)).toBe(before - 1);
      expect(after).toBe(before - 2);
    },
  );
});

describe('an absolute-form request target', () => {
  it('is served as its path, counted, and its links are on the authority it names', async () => {
    await api.post('/api/v1/products', {
      sku: 'TARGET-1',
      name: 'One',
      category: 'request-target',
      price: '1.00',
      currency: 'EUR',
    });
    await api.post('/api/v1/products', {
      sku: 'TARGET-2',
      name: 'Two',
      category: 'request-target',
      price: '1.00',
      currency: 'EUR',
    });

    const before = remaining(await get('/api/v1/products?limit=1'));
    const answer = await get(
      'http://shop.example:8443/api/v1/products?category=request-target&limit=1',
    );

    expect(answer.status).toBe(200);
    expect(remaining(answer)).toBe(before - 1);
    expect(answer.body.pagination.next).toMatch(
      /^http:\/\/shop\.example:8443\/api\/v1\/products\?/,
    );
    expect(answer.headers.get('link')).toMatch(
      /^<http:\/\/shop\.example:8443\/api\/v1\/products\?/,
    );
  });
});

describe('the Host header', () => {
  it.each([
    ['evil.example>; rel="next", <http://x'],
    ['a"b'],
    ['example.com:99999'],
    ['example.com:0'],
    ['exa mple.com'],
  ])('refuses Host: %s with 400 naming Host, without a link built on it', async (host) => {
    const answer = await get(
      '/api/v1/products?limit=1',
      `Host: ${host}\r\nX-API-Key: ${ADMIN_KEY}\r\n`,
    );

    expect([answer.status, answer.body.code, answer.body.errors]).toEqual([
      400,
      'bad_request',
      [{ field: 'Host', message: 'must be a host name or address and a port' }],
    ]);
    // v1's deprecation links are on the address the request came in on
    const links = [...(answer.headers.get('link') ?? '').matchAll(/<([^>]*)>/g)].map((m) => m[1]);
    expect(links).toEqual([
      `http://127.0.0.1:${port}/api/v2/products`,
      `http://127.0.0.1:${port}/docs/changelog`,
    ]);
    expect(answer.body.type).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/docs\/errors\/bad_request$/);
  });

  it('refuses a repeated Host with 400', async () => {
    const answer = await get(
      '/api/v1/products?limit=1',
      `Host: 127.0.0.1:${port}\r\nHost: other.example\r\nX-API-Key: ${ADMIN_KEY}\r\n`,
    );

    expect([answer.status, answer.body.errors]).toEqual([
      400,
      [{ field: 'Host', message: 'must be sent once' }],
    ]);
  });

  it('serves names with underscores and IPv6 literals, and builds links on them', async () => {
    for (const host of ['commerce_api:3000', '[::1]:3000', 'shop.example']) {
      const answer = await get(
        '/api/v1/products?limit=1',
        `Host: ${host}\r\nX-API-Key: ${ADMIN_KEY}\r\n`,
      );
      expect([host, answer.status]).toEqual([host, 200]);
    }
  });

  it('serves an HTTP/1.0 request without Host, its links on the address it came in on', async () => {
    const answer = parseAnswer(
      await rawExchange(
        api.baseUrl,
        `GET /api/v1/products?category=request-target&limit=1 HTTP/1.0\r\nX-API-Key: ${ADMIN_KEY}\r\n\r\n`,
      ),
    );

    expect(answer.status).toBe(200);
    expect(answer.body.pagination.next).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/v1/products\\?`),
    );
  });
});

describe('refusals of what links cannot be built on', () => {
  it('answers an HTTP/1.1 request without Host with the 400 problem naming Host, not an empty 400', async () => {
    const answer = await get(
      '/api/v1/products',
      `X-Request-Id: no-host-1\r\nX-API-Key: ${ADMIN_KEY}\r\n`,
    );

    expect([answer.status, answer.body.code, answer.body.errors]).toEqual([
      400,
      'bad_request',
      [{ field: 'Host', message: 'must be sent (HTTP/1.1)' }],
    ]);
    expect(answer.headers.get('x-request-id')).toBe('no-host-1');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('still refuses an invalid or missing Host when the target is in absolute form', async () => {
    const target = 'http://shop.example/api/v1/products';
    const invalid = await get(target, `Host: bad host\r\nX-API-Key: ${ADMIN_KEY}\r\n`);
    const missing = await get(target, `X-API-Key: ${ADMIN_KEY}\r\n`);

    expect([invalid.status, invalid.body.errors?.[0]?.field]).toEqual([400, 'Host']);
    expect([missing.status, missing.body.errors?.[0]?.field]).toEqual([400, 'Host']);
  });

  it('answers a target that is no path (OPTIONS *) with the 404 problem and every answer’s headers', async () => {
    const answers = await Promise.all(
      ['OPTIONS *', 'GET *', 'GET *api/v1/products'].map((line) =>
        rawExchange(
          api.baseUrl,
          `${line} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        ).then(parseAnswer),
      ),
    );

    for (const answer of answers) {
      expect([answer.status, answer.body.code, answer.headers.get('allow')]).toEqual([
        404,
        'not_found',
        undefined,
      ]);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(answer.headers.get('x-request-id')).toBe(answer.body.requestId);
    }
  });

  it('serves no absolute-form target of another scheme', async () => {
    const answer = await get('ftp://shop.example/api/v1/products');

    expect(answer.status).not.toBe(200);
  });

  it('refuses an X-Forwarded-Proto from a trusted proxy that is neither http nor https', async () => {
    const answer = await get(
      '/api/v1/products',
      `Host: 127.0.0.1:${port}\r\nX-Forwarded-Proto: javascript\r\nX-API-Key: ${ADMIN_KEY}\r\n`,
    );

    expect([answer.status, answer.body.errors]).toEqual([
      400,
      [{ field: 'X-Forwarded-Proto', message: 'must be http or https' }],
    ]);
    expect(answer.body.type).toMatch(/^http:\/\//);
  });

  it('keeps a collection page’s Link on its 304, as documented', async () => {
    const first = await api.get('/api/v2/products?category=request-target&limit=1');
    const again = await api.get('/api/v2/products?category=request-target&limit=1', {
      headers: { 'If-None-Match': first.headers.get('etag') as string },
    });

    expect(again.status).toBe(304);
    expect(again.headers.get('link')).toBe(first.headers.get('link'));
  });
});
