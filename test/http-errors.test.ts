import { ERROR_CODES } from '../src/http/problems/error-codes';
import { createProduct, productBody } from './support/factories';
import { expectProblem, fieldsOf, PROBLEM_CONTENT_TYPE } from './support/problem';
import { parseAnswer, rawExchange } from './support/raw-http';
import { ADMIN_KEY, ApiResponse, startTestApp, TestApp } from './support/test-app';

/** API.md §1 (transport) and §7 (errors): every failure path answers a problem. */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const UUID_NOBODY_HAS = '01890000-0000-7000-8000-000000000000';

/** Every product the collection holds, with its version: what a rejected write must not change. */
async function catalogSnapshot() {
  const response = await api.get('/api/v1/products?limit=100&sort=id');
  expect(response.status).toBe(200);
  return {
    total: response.body.pagination.total as number,
    items: (response.body.data as { id: string; version: number }[]).map((p) => ({
      id: p.id,
      version: p.version,
    })),
  };
}

/** Runs a write that must be refused and asserts the collection is the same afterwards. */
async function refusedWrite(write: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const before = await catalogSnapshot();
  const response = await write();
  expect(await catalogSnapshot()).toEqual(before);
  return response;
}

function expectNoStackTrace(response: ApiResponse) {
  expect(response.text).not.toMatch(/\n\s+at\s/);
  expect(response.text).not.toMatch(/node_modules|\.ts:\d+|\.js:\d+/);
  if (typeof response.body === 'object' && response.body !== null) {
    expect(response.body).not.toHaveProperty('stack');
  }
}

describe('unknown routes and methods', () => {
  it('answers a GET on a path no route serves with a complete 404 not_found problem', async () => {
    const response = await api.get('/api/v1/no-such-collection?limit=5');

    const problem = expectProblem(response, 404, 'not_found');
    expect(problem.instance).toBe('/api/v1/no-such-collection');
    expect(problem.title).toBe(ERROR_CODES.not_found.title);
    expect(new URL(problem.type).pathname).toBe('/docs/errors/not_found');
    expect(problem.requestId).toMatch(REQUEST_ID);
    expect(problem).not.toHaveProperty('errors');
  });

  it('answers 404 for a path outside /api as well', async () => {
    const response = await api.get('/nothing/here', { auth: false });

    expectProblem(response, 404, 'not_found');
    expect(response.body.instance).toBe('/nothing/here');
  });

  it.each([['GET'], ['DELETE'], ['POST']])(
    'answers %s on a collection path with a trailing slash with 404, not 405',
    async (method) => {
      const response = await api.request(method, '/api/v1/products/');

      expectProblem(response, 404, 'not_found');
      expect(response.headers.has('allow')).toBe(false);
    },
  );

  it.each([
    ['PUT', '/api/v1/products/', 'text/plain', 'x'],
    ['PATCH', '/api/v1/orders/', 'application/json', '{'],
    ['PATCH', '/api/v1/inventory//', 'application/json', '{'],
  ])(
    'answers %s %s, an empty id, with 404 before judging its body (%s %s)',
    async (method, path, type, rawBody) => {
      const response = await api.request(method, path, {
        rawBody,
        headers: { 'Content-Type': type },
      });

      expectProblem(response, 404, 'not_found');
      expect(response.body.detail).toBe(`No route matches ${method} ${path}.`);
    },
  );

  it('answers 404 for an empty path segment where an id belongs', async () => {
    const response = await api.get('/api/v1/inventory//adjustments');

    expectProblem(response, 404, 'not_found');
    expect(response.headers.has('allow')).toBe(false);
  });

  it('answers an unsupported method on a collection with 405 and an Allow header of its methods', async () => {
    const response = await api.request('DELETE', '/api/v1/products');

    const problem = expectProblem(response, 405, 'method_not_allowed');
    expect(problem.instance).toBe('/api/v1/products');
    const allowed = (response.headers.get('allow') ?? '').split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(allowed).not.toContain('DELETE');
    expect(allowed).not.toContain('PUT');
  });

  it('answers an unsupported method on a member path with 405 listing GET, PUT, PATCH and DELETE', async () => {
    const response = await api.post(`/api/v1/products/${UUID_NOBODY_HAS}`, productBody());

    expectProblem(response, 405, 'method_not_allowed');
    const allowed = (response.headers.get('allow') ?? '').split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['GET', 'PUT', 'PATCH', 'DELETE']));
    expect(allowed).not.toContain('POST');
  });

  const OVER_LIMIT = JSON.stringify({ padding: 'x'.repeat(1024 * 1024) });
  it.each([
    ['PATCH /api/v1/products', 'a text/plain body (415)', 'text/plain', 'x', 405],
    ['PUT /api/v1/orders', 'malformed JSON (400)', 'application/json', '{bad', 405],
    ['PUT /api/v1/products', 'a body over 1 MiB (413)', 'application/json', OVER_LIMIT, 405],
    ['POST /api/v1/nope', 'a text/plain body (415)', 'text/plain', 'x', 404],
    ['POST /api/v1/nope', 'malformed JSON (400)', 'application/json', '{x', 404],
    ['POST /api/v1/nope', 'a body over 1 MiB (413)', 'application/json', OVER_LIMIT, 404],
    ['QUERY /api/v1/products', 'no Content-Type (400)', undefined, undefined, 405],
  ])(
    'answers %s with %s by its route, before the body',
    async (request, _refusal, contentType, body, status) => {
      const [method, path] = request.split(' ');
      const response = await api.request(method, path, {
        rawBody: body,
        headers: contentType ? { 'Content-Type': contentType } : {},
      });

      if (status === 404) {
        expectProblem(response, 404, 'not_found');
        expect(response.headers.has('allow')).toBe(false);
      } else {
        expectProblem(response, 405, 'method_not_allowed');
        expect(response.headers.get('allow')).toMatch(/GET/);
      }
    },
  );

  it('answers an unsupported method on a public path with 405 before asking for credentials', async () => {
    const response = await api.request('DELETE', '/health/live', { auth: false });

    expectProblem(response, 405, 'method_not_allowed');
    expect((response.headers.get('allow') ?? '').split(/\s*,\s*/)).toContain('GET');
  });
});

describe('paths under /docs', () => {
  it.each([
    ['/docs/v3/openapi.json'],
    ['/docs/foo'],
    ['/docs/v1/openapi.yaml'],
    ['/docs/errors/bad_request/x'],
    ['/docs/changelog/x'],
  ])('answers GET %s, which no page serves, with 404 not_found and no Allow', async (path) => {
    const response = await api.get(path, { auth: false });

    const problem = expectProblem(response, 404, 'not_found');
    expect(problem.instance).toBe(path);
    expect(response.headers.has('allow')).toBe(false);
  });

  it.each([
    ['/docs/package.json'],
    ['/docs/README.md'],
    ['/docs/log.bundle-sizes.swagger-ui.txt'],
    ['/docs/swagger-ui-es-bundle.js'],
  ])(
    'answers GET %s, a file of swagger-ui-dist the docs UI does not load, with 404',
    async (path) => {
      const response = await api.get(path, { auth: false });

      const problem = expectProblem(response, 404, 'not_found');
      expect(problem.instance).toBe(path);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    },
  );

  it('answers another method on a docs path that does not exist with 404, not 405', async () => {
    const response = await api.request('POST', '/docs/foo', { auth: false });

    expectProblem(response, 404, 'not_found');
    expect(response.headers.has('allow')).toBe(false);
  });

  it.each([
    ['/docs', /^text\/html/],
    ['/docs/', /^text\/html/],
    ['/docs/v1/openapi.json', /^application\/json/],
    ['/docs/v2/openapi.json', /^application\/json/],
    ['/docs/errors', /^text\/html/],
    ['/docs/errors/not_found', /^text\/html/],
    ['/docs/changelog', /^text\/html/],
    ['/docs/swagger-ui-init.js', /javascript/],
    ['/docs/swagger-ui.css', /^text\/css/],
    ['/docs/swagger-ui-bundle.js', /javascript/],
    ['/docs/oauth2-redirect.html', /^text\/html/],
    ['/docs/oauth2-redirect.js', /javascript/],
    ['/docs/swagger-ui-standalone-preset.js', /javascript/],
    ['/docs/swagger-ui-bundle.js.map', /^application\/json/],
    ['/docs/favicon-32x32.png', /^image\/png/],
  ])('still serves %s', async (path, type) => {
    const response = await api.get(path, { auth: false });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(type);
  });

  it.each([
    ['POST', '/docs/v1/openapi.json'],
    ['POST', '/docs/swagger-ui.css'],
    ['DELETE', '/docs/swagger-ui-bundle.js'],
    ['PUT', '/docs/favicon-32x32.png'],
    ['POST', '/docs/oauth2-redirect.html'],
    ['POST', '/docs/errors/not_found'],
  ])('answers %s %s, a docs page or file, with 405 and Allow', async (method, path) => {
    const response = await api.request(method, path, { auth: false });

    expectProblem(response, 405, 'method_not_allowed');
    expect((response.headers.get('allow') ?? '').split(/\s*,\s*/)).toEqual(['GET', 'HEAD']);
  });

  it.each([
    ['POST', '/docs/README.md'],
    ['DELETE', '/docs/errors/no_such_code'],
    ['POST', '/docs/errors/zzz'],
  ])(
    'answers %s %s, a path under /docs that GET does not serve either, with 404',
    async (method, path) => {
      const get = await api.get(path, { auth: false });
      const response = await api.request(method, path, { auth: false });

      expectProblem(get, 404, 'not_found');
      expectProblem(response, 404, 'not_found');
      expect(response.headers.has('allow')).toBe(false);
    },
  );
});

describe('URLs the router refuses before any route', () => {
  const LONG_ID = 'A'.repeat(300);

  it('answers a malformed percent-encoding in the path with a 400 bad_request problem', async () => {
    const response = await api.get('/api/v1/products/%zz', {
      headers: { 'X-Request-Id': 'bad-url-1' },
    });

    const problem = expectProblem(response, 400, 'bad_request');
    expect(problem.instance).toBe('/api/v1/products/%zz');
    expect(problem.requestId).toBe('bad-url-1');
    expect(problem.detail).toMatch(/percent-encoding/);
  });

  it('answers a path parameter longer than any key can be with a 404 not_found problem', async () => {
    const response = await api.get(`/api/v1/products/${LONG_ID}`, {
      headers: { 'X-Request-Id': 'long-id-1' },
    });

    const problem = expectProblem(response, 404, 'not_found');
    expect(problem.instance).toBe(`/api/v1/products/${LONG_ID}`);
    expect(problem.requestId).toBe('long-id-1');
  });

  it('answers an id as long as the router allows like any unknown id: 404 from the resource', async () => {
    const response = await api.get(`/api/v1/products/${'A'.repeat(200)}`);

    expectProblem(response, 404, 'not_found');
    // a request that reached the API: counted and told its budget
    expect(response.headers.get('ratelimit-policy')).toMatch(/^"default";q=\d+;w=\d+$/);
  });

  it.each([
    ['GET', 'a malformed percent-encoding', '/api/v1/products/%zz', 400],
    ['GET', 'an id of 300 characters', `/api/v1/products/${LONG_ID}`, 404],
    ['DELETE', 'an id of 300 characters', `/api/v1/products/${LONG_ID}`, 404],
    ['GET', 'a truncated UTF-8 escape outside /api', '/docs/errors/%E0%A4%A', 400],
  ])(
    'answers a %s with %s with the headers of every answer',
    async (method, _what, path, status) => {
      const response = await api.request(method, path, {
        headers: { 'X-Request-Id': 'not a valid id' },
      });

      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(PROBLEM_CONTENT_TYPE);
      const requestId = response.headers.get('x-request-id');
      expect(requestId).toMatch(REQUEST_ID);
      expect(requestId).not.toBe('not a valid id');
      expect(response.body.requestId).toBe(requestId);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      // the pages' policy under /docs, the API's elsewhere
      expect(response.headers.get('content-security-policy')).toMatch(
        path.startsWith('/docs') ? /default-src 'self'/ : /^default-src 'none'/,
      );
      expect(response.headers.has('x-powered-by')).toBe(false);
      const vary = (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
      expect(vary).toEqual(expect.arrayContaining(['origin', 'authorization', 'x-api-key']));
      expect(response.body).not.toHaveProperty('statusCode');
      expectNoStackTrace(response);
      // counted against the caller's budget under /api (API.md §8), as every /api answer
      expect(response.headers.has('ratelimit-policy')).toBe(path.startsWith('/api/'));
      expect(response.headers.has('x-ratelimit-remaining')).toBe(path.startsWith('/api/'));
    },
  );
});

describe('request bodies', () => {
  it.each([
    ['text/plain', 'sku=X'],
    ['application/x-www-form-urlencoded', 'sku=X&name=Y'],
    ['application/xml', '<product/>'],
  ])('refuses a POST sent as %s with 415 unsupported_media_type', async (type, rawBody) => {
    const response = await refusedWrite(() =>
      api.request('POST', '/api/v1/products', { rawBody, headers: { 'Content-Type': type } }),
    );

    expectProblem(response, 415, 'unsupported_media_type');
  });

  it.each([
    ['text, another media type', 'text/plain', 'hello'],
    ['JSON that does not parse', 'application/json', '{bad'],
    ['JSON holding NUL', 'application/json', '{"a":"\\u0000"}'],
    ['over 1 MiB', 'application/json', `"${'x'.repeat(1_100_000)}"`],
  ])(
    'ignores the body of a GET, %s, as the documents say (RFC 9110 §9.3.1)',
    async (_, type, body) => {
      const text = await rawExchange(
        api.baseUrl,
        `GET /api/v1/products?limit=1 HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
          `Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );

      const answer = parseAnswer(text);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual(expect.any(Array));
    },
  );

  it('refuses a POST whose body has no Content-Type with 415', async () => {
    const body = JSON.stringify(productBody());
    const answer = parseAnswer(
      await rawExchange(
        api.baseUrl,
        `POST /api/v1/products HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      ),
    );

    expect(answer.status).toBe(415);
    expect(answer.body.code).toBe('unsupported_media_type');
  });

  it('accepts application/json with a charset parameter', async () => {
    const body = productBody();

    const response = await api.request('POST', '/api/v1/products', {
      rawBody: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ sku: body.sku });
  });

  it.each([['charset=iso-8859-1'], ['charset=utf-16'], ['version=2']])(
    'ignores the parameter %s of application/json and reads the body as UTF-8 (RFC 8259 §11)',
    async (parameter) => {
      const body = { ...productBody(), name: 'Café crème' };

      const response = await api.request('POST', '/api/v1/products', {
        rawBody: JSON.stringify(body),
        headers: { 'Content-Type': `application/json; ${parameter}` },
      });

      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ sku: body.sku, name: 'Café crème' });
    },
  );

  it('refuses a body over 1 MiB with 413 payload_too_large', async () => {
    const body = productBody({ description: 'x'.repeat(1024 * 1024 + 16) });

    const response = await refusedWrite(() => api.post('/api/v1/products', body));

    expectProblem(response, 413, 'payload_too_large');
  });

  it('refuses malformed JSON with 400 invalid_json', async () => {
    const response = await refusedWrite(() =>
      api.request('POST', '/api/v1/products', {
        rawBody: '{"sku": "A", "name": ',
        headers: { 'Content-Type': 'application/json' },
      }),
    );

    expectProblem(response, 400, 'invalid_json');
  });

  it('refuses a JSON body that is not UTF-8 with 400 invalid_json rather than store replacement characters', async () => {
    // "Café" in Latin-1: 0xE9 alone is not UTF-8
    const body = Buffer.concat([
      Buffer.from(`{"sku":"LATIN1-${Date.now()}","name":"Caf`),
      Buffer.from([0xe9]),
      Buffer.from('","category":"x","price":"1.00","currency":"EUR"}'),
    ]);
    const response = await refusedWrite(async () => {
      const raw = await fetch(`${api.baseUrl}/api/v1/products`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': ADMIN_KEY },
        body,
      });
      const text = await raw.text();
      return { status: raw.status, headers: raw.headers, body: JSON.parse(text), text };
    });

    const problem = expectProblem(response, 400, 'invalid_json');
    expect(problem.detail).toMatch(/UTF-8/);
  });

  it('takes a body with a byte order mark and multi-byte characters', async () => {
    const sku = `UTF8-${Date.now()}`;
    const response = await api.request('POST', '/api/v1/products', {
      rawBody: `\ufeff${JSON.stringify({ ...productBody({ sku }), name: 'Café 東京 🚚' })}`,
      headers: { 'Content-Type': 'application/json' },
    });

    expect(response.status).toBe(201);
    expect(response.body.name).toBe('Café 東京 🚚');
  });

  it('refuses an empty JSON body on a POST as a missing body, with 422 validation_failed', async () => {
    const response = await refusedWrite(() =>
      api.request('POST', '/api/v1/products', {
        rawBody: '',
        headers: { 'Content-Type': 'application/json' },
      }),
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
  });

  it.each([['[]'], ['[{"sku":"A"}]'], ['42'], ['"a product"'], ['true'], ['null']])(
    'refuses the JSON value %s as a body with 422 validation_failed',
    async (rawBody) => {
      const response = await refusedWrite(() =>
        api.request('POST', '/api/v1/products', {
          rawBody,
          headers: { 'Content-Type': 'application/json' },
        }),
      );

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(problem.errors?.length).toBeGreaterThan(0);
    },
  );

  it('refuses an unknown body field with 422 validation_failed naming it in errors', async () => {
    const response = await refusedWrite(() =>
      api.post('/api/v1/products', productBody({ colour: 'red' })),
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: 'colour', message: expect.any(String) }]);
    expect(problem.errors?.[0].message.length).toBeGreaterThan(0);
  });

  it('lists every invalid field of a body, each with a message', async () => {
    const response = await refusedWrite(() =>
      api.post('/api/v1/products', { sku: 'has space', name: '', category: 'c' }),
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(fieldsOf(problem)).toEqual(expect.arrayContaining(['sku', 'name', 'price', 'currency']));
    for (const error of problem.errors ?? []) expect(error.message).toMatch(/\S/);
  });

  it('refuses a PATCH with an unknown field and leaves the product as it was', async () => {
    const product = await createProduct(api);

    const response = await refusedWrite(() =>
      api.request('PATCH', `/api/v1/products/${product.id}`, { body: { colour: 'red' } }),
    );

    expectProblem(response, 422, 'validation_failed');
    const after = await api.get(`/api/v1/products/${product.id}`);
    expect(after.body).toEqual(product);
  });
});

describe('the Expect header', () => {
  const exchange = (request: string) => rawExchange(api.baseUrl, request).then(parseAnswer);

  it('serves a request whose expectation it does not know as if it had none, not a bare 417', async () => {
    const answer = await exchange(
      `GET /api/v2/products?limit=1 HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
        'Expect: x-unknown\r\nConnection: close\r\n\r\n',
    );

    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.body.data).toEqual(expect.any(Array));
  });

  it('reads the body of such a request and answers what it holds', async () => {
    const body = '{"sku":""}';
    const answer = await exchange(
      `POST /api/v2/products HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        `Expect: x-unknown\r\nConnection: close\r\n\r\n${body}`,
    );

    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toMatch(PROBLEM_CONTENT_TYPE);
    expect(answer.body.code).toBe('validation_failed');
  });
});

describe('CONNECT', () => {
  const exchange = (request: string) => rawExchange(api.baseUrl, request).then(parseAnswer);

  it('is 405 with Allow on a known path, as any method the path does not take, not a closed connection', async () => {
    const answer = await exchange(
      `CONNECT /api/v1/products HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
        'X-Request-Id: connect-1\r\n\r\n',
    );

    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(answer.headers.get('content-type')).toMatch(PROBLEM_CONTENT_TYPE);
    expect(answer.body).toMatchObject({ code: 'method_not_allowed', requestId: 'connect-1' });
    expect(answer.headers.get('x-request-id')).toBe('connect-1');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(answer.headers.get('connection')).toBe('close');
  });

  it.each([['/api/v1/no-such-collection'], ['example.com:443']])(
    'is 404 on %s, which no route serves, without reading a body it announces',
    async (target) => {
      const answer = await exchange(
        `CONNECT ${target} HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":',
      );

      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('not_found');
    },
  );
});

describe('query strings', () => {
  it('refuses an unknown query parameter with 400 bad_request naming it', async () => {
    const response = await api.get('/api/v1/products?colour=red');

    const problem = expectProblem(response, 400, 'bad_request');
    expect(fieldsOf(problem)).toEqual(['colour']);
  });

  it.each([['0'], ['101'], ['abc'], ['1.5'], ['-1'], ['']])(
    'refuses limit=%s with 400 bad_request naming limit',
    async (limit) => {
      const response = await api.get(`/api/v1/products?limit=${limit}`);

      const problem = expectProblem(response, 400, 'bad_request');
      expect(fieldsOf(problem)).toContain('limit');
    },
  );

  it.each([['1'], ['100']])('accepts limit=%s, the ends of the range', async (limit) => {
    const response = await api.get(`/api/v1/products?limit=${limit}`);

    expect(response.status).toBe(200);
    expect(response.body.pagination.limit).toBe(Number(limit));
  });
});

describe('security headers and leaks', () => {
  const answers: [string, () => Promise<ApiResponse>][] = [
    ['a 200 collection', () => api.get('/api/v1/products')],
    ['a 201 creation', () => api.post('/api/v1/products', productBody())],
    ['a 200 public page', () => api.get('/health/live', { auth: false })],
    ['a 404', () => api.get('/api/v1/nope')],
    ['a 405', () => api.request('DELETE', '/api/v1/products')],
    ['a 400', () => api.get('/api/v1/products?limit=0')],
    ['a 401', () => api.get('/api/v1/products', { auth: false })],
    [
      'a 415',
      () =>
        api.request('POST', '/api/v1/products', {
          rawBody: 'x',
          headers: { 'Content-Type': 'text/plain' },
        }),
    ],
    [
      'a 400 invalid_json',
      () =>
        api.request('POST', '/api/v1/products', {
          rawBody: '{',
          headers: { 'Content-Type': 'application/json' },
        }),
    ],
    ['a 422', () => api.post('/api/v1/products', [1, 2])],
  ];

  it.each(answers)('%s carries nosniff and no X-Powered-By', async (_name, send) => {
    const response = await send();

    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.has('x-powered-by')).toBe(false);
    expect(response.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  it.each(answers)('%s has no stack trace in its body', async (_name, send) => {
    const response = await send();

    expectNoStackTrace(response);
  });

  it.each(answers.filter(([name]) => !/^a 20/.test(name)))(
    '%s is application/problem+json',
    async (_name, send) => {
      const response = await send();

      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get('content-type')).toMatch(PROBLEM_CONTENT_TYPE);
    },
  );

  it('answers successes as application/json with charset utf-8', async () => {
    const response = await api.get('/api/v1/products');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json;\s*charset=utf-8$/i);
  });
});

describe('X-Request-Id', () => {
  it.each([['abc-123._:XYZ'], ['a'], ['x'.repeat(128)]])(
    'echoes the well-formed id %s on the header and in the problem body',
    async (id) => {
      const response = await api.get('/api/v1/nope', { headers: { 'X-Request-Id': id } });

      expect(response.headers.get('x-request-id')).toBe(id);
      expect(expectProblem(response, 404, 'not_found').requestId).toBe(id);
    },
  );

  it('echoes a well-formed id on a success too', async () => {
    const response = await api.get('/api/v1/products', {
      headers: { 'X-Request-Id': 'client-42' },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('client-42');
  });

  it.each([
    ['one containing a space', 'abc def'],
    ['one of 200 characters', 'y'.repeat(200)],
    ['one of 129 characters', 'z'.repeat(129)],
    ['one containing a slash', 'a/b'],
    ['one containing a quote', 'a"b'],
  ])('replaces %s with a generated id', async (_name, id) => {
    const response = await api.get('/api/v1/nope', { headers: { 'X-Request-Id': id } });

    const generated = response.headers.get('x-request-id');
    expect(generated).not.toBe(id);
    expect(generated).toMatch(REQUEST_ID);
    expect(expectProblem(response, 404, 'not_found').requestId).toBe(generated);
  });

  it('generates a different id for each request that sends none', async () => {
    const first = await api.get('/health/live', { auth: false });
    const second = await api.get('/health/live', { auth: false });

    expect(first.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(second.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });
});

describe('error documentation', () => {
  it.each(Object.keys(ERROR_CODES))(
    'serves a 200 HTML page at /docs/errors/%s without credentials',
    async (code) => {
      const response = await api.get(`/docs/errors/${code}`, { auth: false });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.text).toContain(code);
      expect(response.text).toContain(String(ERROR_CODES[code as keyof typeof ERROR_CODES].status));
    },
  );

  it('serves the page a problem type links to, at that exact URL', async () => {
    const problem = expectProblem(await api.get('/api/v1/nope'), 404, 'not_found');

    const page = await fetch(problem.type);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('not_found');
  });

  it('answers an unknown error code page with a 404 not_found problem', async () => {
    const response = await api.get('/docs/errors/no_such_code', { auth: false });

    const problem = expectProblem(response, 404, 'not_found');
    expect(problem.instance).toBe('/docs/errors/no_such_code');
  });
});

describe('authentication failures', () => {
  const expectChallenges = (response: ApiResponse) => {
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/(^|,\s*)Bearer(\s|,|$)/);
    expect(challenge).toMatch(/(^|,\s*)ApiKey(\s|,|$)/);
  };

  it('answers a request without credentials with 401 unauthenticated and both challenges', async () => {
    const response = await api.get('/api/v1/products', { auth: false });

    expectProblem(response, 401, 'unauthenticated');
    expectChallenges(response);
  });

  it.each([
    ['an unknown API key', 'coa_not-a-key-anyone-was-given'],
    ['an empty API key (sent, and not valid)', ''],
  ])('answers %s with 401 invalid_token and both challenges', async (_, key) => {
    const response = await api.get('/api/v1/products', {
      auth: false,
      headers: { 'X-API-Key': key },
    });

    expectProblem(response, 401, 'invalid_token');
    expectChallenges(response);
  });

  it('refuses a write without credentials and changes nothing', async () => {
    const response = await refusedWrite(() =>
      api.post('/api/v1/products', productBody(), { auth: false }),
    );

    expectProblem(response, 401, 'unauthenticated');
  });

  it.each([
    ['/health/live', /json/],
    ['/health/ready', /json/],
    ['/docs/v1/openapi.json', /json/],
    ['/docs/v2/openapi.json', /json/],
    ['/docs/errors/not_found', /html/],
    ['/docs/changelog', /html/],
  ])('serves the public route %s without credentials', async (path, type) => {
    const response = await api.get(path, { auth: false });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(type);
    expect(response.headers.has('www-authenticate')).toBe(false);
  });
});

describe('bytes the HTTP parser refuses before any request exists', () => {
  it.each([
    [
      'an unknown method',
      'FOO /api/v1/products HTTP/1.1\r\nHost: shop.test\r\n\r\n',
      /not an HTTP method/,
    ],
    [
      'a Content-Length that is not a number',
      'POST /api/v1/products HTTP/1.1\r\nHost: shop.test\r\nContent-Length: abc\r\n\r\n',
      /not valid HTTP/,
    ],
    [
      'headers over 16 KiB',
      `GET /api/v1/products HTTP/1.1\r\nHost: shop.test\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      /exceed 16 KiB/,
    ],
    [
      'a header holding the NUL character',
      'GET /api/v1/products HTTP/1.1\r\nHost: shop.test\r\nX-Note: a\u0000b\r\n\r\n',
      /not valid HTTP/,
    ],
    [
      'a chunk size that is not hexadecimal',
      'POST /api/v1/products HTTP/1.1\r\nHost: shop.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      /not valid HTTP/,
    ],
  ])('answers %s with a 400 bad_request problem and a request id', async (_, bytes, detail) => {
    const answer = parseAnswer(await rawExchange(api.baseUrl, bytes));

    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(PROBLEM_CONTENT_TYPE);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.headers.get('cache-control')).toBe('private, no-cache');
    expect(answer.headers.get('vary')).toBe('Origin, Authorization, X-API-Key');
    const requestId = answer.headers.get('x-request-id');
    expect(requestId).toMatch(REQUEST_ID);
    expect(answer.body).toEqual({
      type: 'http://shop.test/docs/errors/bad_request',
      title: ERROR_CODES.bad_request.title,
      status: 400,
      detail: expect.stringMatching(detail),
      instance: '/api/v1/products',
      code: 'bad_request',
      requestId,
    });
  });

  it('echoes a well-formed X-Request-Id and names / when there is no path to name', async () => {
    const echoed = parseAnswer(
      await rawExchange(
        api.baseUrl,
        'FOO /x HTTP/1.1\r\nHost: shop.test\r\nX-Request-Id: parser-1\r\n\r\n',
      ),
    );
    const garbage = parseAnswer(await rawExchange(api.baseUrl, 'GARBAGE\r\n\r\n'));

    expect(echoed.headers.get('x-request-id')).toBe('parser-1');
    expect(echoed.body.requestId).toBe('parser-1');
    expect(garbage.status).toBe(400);
    expect(garbage.body.instance).toBe('/');
    expect(garbage.body.type).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/docs\/errors\/bad_request$/);
    expect(garbage.headers.get('x-request-id')).toBe(garbage.body.requestId);
  });

  it('answers a pipelined request in full before the 400 for the bytes after it', async () => {
    // the first request still waits on the database when the parser refuses the second
    const text = await rawExchange(
      api.baseUrl,
      `GET /api/v1/products?limit=100 HTTP/1.1\r\nHost: shop.test\r\nX-API-Key: ${ADMIN_KEY}\r\n\r\n` +
        'FOO /x HTTP/1.1\r\nHost: shop.test\r\n\r\n',
    );

    const [, first, second] =
      /^(HTTP\/1\.1 200 [\s\S]*?)(HTTP\/1\.1 400 [\s\S]*)$/.exec(text) ?? [];
    expect(first).toBeDefined();
    const head = first.split('\r\n\r\n', 1)[0];
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    expect(Buffer.byteLength(first) - Buffer.byteLength(head) - 4).toBe(length);
    expect(JSON.parse(first.slice(head.length + 4)).data).toEqual(expect.any(Array));
    expect(parseAnswer(second)).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });

  it('keeps serving other connections afterwards', async () => {
    await rawExchange(api.baseUrl, 'GARBAGE\r\n\r\n');

    const response = await api.get('/health/live', { auth: false });
    expect(response.status).toBe(200);
  });
});
