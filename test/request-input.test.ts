import { connect } from 'node:net';
import { createProduct, productBody } from './support/factories';
import { addressBody, orderBody, stockedProduct } from './support/order-factories';
import { expectProblem } from './support/problem';
import { ADMIN_KEY, ApiResponse, startTestApp, TestApp } from './support/test-app';

/**
 * Client input that is valid JSON or a valid query string, yet that PostgreSQL or the
 * validator cannot take: NUL characters, deep nesting, an empty body sent as JSON, and
 * prototype keys. Each is a 4xx problem that names what is wrong, never a 500.
 */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp({ RATE_LIMIT_PER_HOUR: '1000000' });
});

afterAll(async () => {
  await api?.close();
});

const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
const JSON_TYPE = { 'Content-Type': 'application/json' };

const sendRaw = (method: string, path: string, rawBody: string) =>
  api.request(method, path, { rawBody, headers: JSON_TYPE });

async function productCount(): Promise<number> {
  const response = await api.get('/api/v1/products?limit=1');
  expect(response.status).toBe(200);
  return response.body.pagination.total as number;
}

/** Runs a POST that must be refused and asserts that no product was created. */
async function noProductCreated(write: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const before = await productCount();
  const response = await write();
  expect(await productCount()).toBe(before);
  return response;
}

/** `depth` objects nested in one another: `{"a":{"a":...{"a":1}...}}`. */
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('the NUL character (U+0000), which PostgreSQL text cannot hold', () => {
  it('refuses it in a created product name with 422 naming the field, and creates nothing', async () => {
    const response = await noProductCreated(() =>
      api.post('/api/v1/products', productBody({ sku: 'NUL-1', name: 'a\u0000b' })),
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: 'name', message: NUL_MESSAGE }]);
    expect(problem.detail).toBe(`name ${NUL_MESSAGE}`);
  });

  it('refuses it in a PATCH and leaves the product as it was', async () => {
    const product = await createProduct(api);

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { description: 'x\u0000y' },
    });

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: 'description', message: NUL_MESSAGE }]);
    expect((await api.get(`/api/v1/products/${product.id}`)).body).toEqual(product);
  });

  it('refuses it in an inventory adjustment reason and leaves the stock as it was', async () => {
    const product = await createProduct(api);

    const response = await api.post(`/api/v1/inventory/${product.sku}/adjustments`, {
      delta: 1,
      reason: 'r\u0000',
    });

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: 'reason', message: NUL_MESSAGE }]);
    const stock = await api.get(`/api/v1/inventory/${product.sku}`);
    expect(stock.body).toMatchObject({ quantityOnHand: 0, version: 1 });
  });

  it('names nested fields and array members the way validation errors do', async () => {
    const product = await stockedProduct(api, 5);

    const response = await api.post(
      '/api/v1/orders',
      orderBody([{ sku: `${product.sku}\u0000`, quantity: 1 }], {
        shippingAddress: addressBody({ city: '\u0000' }),
      }),
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { field: 'lines[0].sku', message: NUL_MESSAGE },
        { field: 'shippingAddress.city', message: NUL_MESSAGE },
      ]),
    );
    expect(problem.errors).toHaveLength(2);
  });

  it('refuses it in a member name, without echoing the character', async () => {
    const response = await noProductCreated(() =>
      sendRaw('POST', '/api/v1/products', JSON.stringify({ ...productBody(), 'a\u0000b': 1 })),
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: 'a\\u0000b', message: NUL_MESSAGE }]);
    expect(problem.detail).toBe(`a\\u0000b ${NUL_MESSAGE}`);
  });

  it('refuses it in a body that a route ignores, such as a DELETE', async () => {
    const product = await createProduct(api);

    const response = await sendRaw(
      'DELETE',
      `/api/v1/products/${product.id}`,
      '{"note":"\\u0000"}',
    );

    expectProblem(response, 422, 'validation_failed');
    expect((await api.get(`/api/v1/products/${product.id}`)).status).toBe(200);
  });

  it('leaves an Idempotency-Key unused when the body is refused for a NUL', async () => {
    const body = productBody();
    const headers = { 'Idempotency-Key': `nul-${body.sku}` };

    const refused = await api.post('/api/v1/products', { ...body, name: '\u0000' }, { headers });
    const fixed = await api.post('/api/v1/products', body, { headers });

    expectProblem(refused, 422, 'validation_failed');
    expect(fixed.status).toBe(201);
    expect(fixed.headers.has('idempotent-replayed')).toBe(false);
  });

  it.each([
    ['/api/v1/products?q=a%00b', 'q'],
    ['/api/v2/products?q=a%00b', 'q'],
    ['/api/v1/products?category=%00', 'category'],
    ['/api/v1/orders?customerId=a%00b', 'customerId'],
    ['/api/v1/inventory?belowReorderLevel=true%00', 'belowReorderLevel'],
    ['/api/v1/products?q=ok&q=a%00b', 'q'],
  ])('refuses it in the query %s with 400 bad_request naming %s', async (path, field) => {
    const response = await api.get(path);

    const problem = expectProblem(response, 400, 'bad_request');
    expect(problem.errors).toEqual([{ field, message: NUL_MESSAGE }]);
  });

  it('accepts a body and a query without NUL as before', async () => {
    const body = { ...productBody(), name: 'caf\u00e9 \u{1F600}', description: 'line\nbreak\ttab' };

    const created = await api.post('/api/v1/products', body);
    const found = await api.get(`/api/v1/products?q=${encodeURIComponent('caf\u00e9')}`);

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: body.name, description: body.description });
    expect(found.status).toBe(200);
  });

  it('never lets a NUL in Idempotency-Key reach the service: the HTTP parser refuses the request', async () => {
    const body = JSON.stringify(productBody());
    const before = await productCount();

    const statusLine = await new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(api.baseUrl);
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          'POST /api/v1/products HTTP/1.1\r\n' +
            `Host: ${hostname}\r\n` +
            `X-API-Key: ${ADMIN_KEY}\r\n` +
            'Idempotency-Key: a\u0000b\r\n' +
            'Content-Type: application/json\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\n` +
            'Connection: close\r\n\r\n' +
            body,
        );
      });
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('close', () => resolve(received.split('\r\n')[0]));
      socket.on('error', reject);
    });

    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(await productCount()).toBe(before);
  });
});

describe('nesting depth', () => {
  it('refuses a body nested 5,000 levels deep with 422 before validation, not a 500', async () => {
    const response = await noProductCreated(() =>
      sendRaw('POST', '/api/v1/products', nestedObjects(5000)),
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      { field: '(body)', message: 'must not nest objects and arrays more than 32 levels deep' },
    ]);
  });

  it('refuses arrays nested close to 1 MiB deep inside a field', async () => {
    const depth = 500_000;
    const rawBody = `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`;

    const response = await noProductCreated(() => sendRaw('POST', '/api/v1/products', rawBody));

    expectProblem(response, 422, 'validation_failed');
  });

  it('lets 32 levels through to validation and refuses 33 as too deep', async () => {
    const atLimit = await sendRaw('POST', '/api/v1/products', nestedObjects(32));
    const pastLimit = await sendRaw('POST', '/api/v1/products', nestedObjects(33));

    expect(expectProblem(atLimit, 422, 'validation_failed').errors).toContainEqual({
      field: 'a',
      message: 'is not a known field',
    });
    expect(expectProblem(pastLimit, 422, 'validation_failed').errors).toEqual([
      { field: '(body)', message: 'must not nest objects and arrays more than 32 levels deep' },
    ]);
  });
});

describe('an empty body sent with Content-Type: application/json', () => {
  it('counts as no body for a DELETE of a product: 204, then 404', async () => {
    const product = await createProduct(api);

    const first = await sendRaw('DELETE', `/api/v1/products/${product.id}`, '');
    const second = await sendRaw('DELETE', `/api/v1/products/${product.id}`, '');

    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expectProblem(second, 404, 'not_found');
  });

  it('counts as no body for a DELETE of an API key: 204', async () => {
    const created = await api.post('/api/v1/api-keys', { name: 'empty body', role: 'analyst' });
    expect(created.status).toBe(201);

    const response = await sendRaw('DELETE', `/api/v1/api-keys/${created.body.id}`, '');

    expect(response.status).toBe(204);
  });

  it.each([
    ['POST', '/api/v1/products'],
    ['PATCH', '/api/v1/products/{id}'],
    ['PUT', '/api/v1/products/{id}'],
  ])(
    'answers a %s %s with an empty JSON body exactly as one without a body',
    async (method, path) => {
      const product = await createProduct(api);
      const url = path.replace('{id}', product.id);

      const withType = await sendRaw(method, url, '');
      const withoutBody = await api.request(method, url);

      const problem = expectProblem(withType, 422, 'validation_failed');
      expect(problem.errors).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
      expect(withoutBody.status).toBe(422);
      expect(withoutBody.body.errors).toEqual(problem.errors);
    },
  );

  it('still refuses a body of only whitespace as invalid JSON', async () => {
    const response = await sendRaw('POST', '/api/v1/products', '  \n');

    expectProblem(response, 400, 'invalid_json');
  });
});

describe('a body sent to an operation that takes none', () => {
  it('refuses unknown fields on a DELETE with 422 naming them, and deletes nothing', async () => {
    const product = await createProduct(api);

    const refused = await api.request('DELETE', `/api/v1/products/${product.id}`, {
      body: { force: true, x: 1 },
    });

    expect(expectProblem(refused, 422, 'validation_failed').errors).toEqual([
      { field: 'force', message: 'is not a known field' },
      { field: 'x', message: 'is not a known field' },
    ]);
    expect((await api.get(`/api/v1/products/${product.id}`)).status).toBe(200);
  });

  it.each([['[]'], ['"hello"'], ['1'], ['null']])(
    'refuses %s sent to an API key revocation with 422, and revokes nothing',
    async (rawBody) => {
      const created = await api.post('/api/v1/api-keys', { name: 'kept', role: 'analyst' });

      const refused = await sendRaw('DELETE', `/api/v1/api-keys/${created.body.id}`, rawBody);

      expect(expectProblem(refused, 422, 'validation_failed').errors).toEqual([
        { field: '(body)', message: 'must be empty or {}: this operation takes no body' },
      ]);
      expect((await api.get(`/api/v1/api-keys/${created.body.id}`)).status).toBe(200);
    },
  );

  it('takes {} and no body alike', async () => {
    const [a, b] = [await createProduct(api), await createProduct(api)];

    const withObject = await api.request('DELETE', `/api/v1/products/${a.id}`, { body: {} });
    const withNone = await api.request('DELETE', `/api/v1/products/${b.id}`);

    expect([withObject.status, withNone.status]).toEqual([204, 204]);
  });
});

describe('an empty body sent with another Content-Type', () => {
  const asText = (method: string, path: string, rawBody = '') =>
    api.request(method, path, { rawBody, headers: { 'Content-Type': 'text/plain' } });

  it('counts as no body for a DELETE: 204, as a GET with that header answers 200', async () => {
    const product = await createProduct(api);

    const read = await api.get(`/api/v1/products/${product.id}`, {
      headers: { 'Content-Type': 'text/plain' },
    });
    const deleted = await asText('DELETE', `/api/v1/products/${product.id}`);

    expect(read.status).toBe(200);
    expect(deleted.status).toBe(204);
  });

  it('answers a POST as one without a body, 422; a body under that type is still 415', async () => {
    const empty = await noProductCreated(() => asText('POST', '/api/v1/products'));
    const withBody = await noProductCreated(() => asText('POST', '/api/v1/products', 'sku=X'));

    expect(expectProblem(empty, 422, 'validation_failed').errors).toEqual([
      { field: '(body)', message: 'must be a JSON object' },
    ]);
    expectProblem(withBody, 415, 'unsupported_media_type');
  });
});

describe('prototype keys and other names validation never sees', () => {
  const unknownFieldMessage = async () => {
    const response = await api.post('/api/v1/products', productBody({ colour: 'red' }));
    return expectProblem(response, 422, 'validation_failed').errors?.[0].message;
  };

  it('refuses "__proto__" as an unknown field with 422, the message of any unknown field', async () => {
    const rawBody = JSON.stringify(productBody()).replace(/}$/, ',"__proto__":{"x":1}}');

    const response = await noProductCreated(() => sendRaw('POST', '/api/v1/products', rawBody));

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: '__proto__', message: 'is not a known field' }]);
    expect(problem.errors?.[0].message).toBe(await unknownFieldMessage());
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses "__proto__" written with escapes', async () => {
    const rawBody = JSON.stringify(productBody()).replace(/}$/, ',"\\u005f_proto__":{"x":1}}');

    const response = await sendRaw('POST', '/api/v1/products', rawBody);

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: '__proto__', message: 'is not a known field' }]);
  });

  it.each([
    ['constructor', '{"prototype":{"x":1}}'],
    ['constructor', '1'],
    ['prototype', '{"x":1}'],
    ['toString', '"x"'],
    ['hasOwnProperty', 'null'],
  ])(
    'refuses "%s": %s, which validation never sees, as an unknown field with 422',
    async (name, value) => {
      const rawBody = JSON.stringify(productBody()).replace(/}$/, `,"${name}":${value}}`);

      const response = await noProductCreated(() => sendRaw('POST', '/api/v1/products', rawBody));

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(problem.errors).toEqual([{ field: name, message: 'is not a known field' }]);
    },
  );

  it.each([['__proto__'], ['constructor'], ['prototype'], ['toString']])(
    'refuses the query parameter %s as unknown with 400, as any unknown parameter',
    async (name) => {
      const response = await api.get(`/api/v1/products?${name}=x`);

      const problem = expectProblem(response, 400, 'bad_request');
      expect(problem.errors).toEqual([{ field: name, message: 'is not a known query parameter' }]);
    },
  );

  it('names a nested "__proto__" by its path', async () => {
    const product = await createProduct(api);

    const response = await sendRaw(
      'PATCH',
      `/api/v2/products/${product.id}`,
      '{"price":{"amount":"1.00","currency":"EUR","__proto__":{"x":1}}}',
    );

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ field: 'price.__proto__', message: 'is not a known field' }]);
    expect((await api.get(`/api/v1/products/${product.id}`)).body).toEqual(product);
  });
});

describe('what a problem quotes back, cut to the bounds the Problem schema documents', () => {
  // test-app.ts checks each answer against that schema as well
  it('cuts an unknown member name of 300 characters to 200, with an ellipsis', async () => {
    const name = 'f'.repeat(300);

    const response = await api.post('/api/v1/products', { ...productBody(), [name]: 1 });

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      { field: `${'f'.repeat(199)}…`, message: 'is not a known field' },
    ]);
  });

  it('cuts an unknown query parameter name of 3,000 characters the same way', async () => {
    const response = await api.get(`/api/v1/products?${'q'.repeat(3000)}=1`);

    const problem = expectProblem(response, 400, 'bad_request');
    expect(problem.errors?.map((e) => e.field)).toEqual([`${'q'.repeat(199)}…`]);
    expect(Array.from(problem.detail).length).toBeLessThanOrEqual(5000);
  });

  it('lists at most 100 errors, however many fields are wrong', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`extra${i}`, i]));

    const response = await api.post('/api/v1/products', { ...productBody(), ...unknown });

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toHaveLength(100);
  });
});

describe('a lone surrogate, which is no character and which UTF-8 cannot hold', () => {
  const send = (method: string, path: string, json: string) =>
    api.request(method, path, { rawBody: json, headers: { 'Content-Type': 'application/json' } });

  it('refuses it in a string with 422 naming the field, and changes nothing', async () => {
    const product = await createProduct(api);

    const response = await send('PATCH', `/api/v1/products/${product.id}`, '{"name":"a\\ud800b"}');

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      { field: 'name', message: expect.stringMatching(/^must be Unicode text/) },
    ]);
    expect((await api.get(`/api/v1/products/${product.id}`)).body.name).toBe(product.name);
  });

  it('refuses the low half alone too, and in a member name', async () => {
    const body = JSON.stringify(productBody()).slice(0, -1);
    const lowHalf = await send('POST', '/api/v1/products', `${body},"description":"\\udc00"}`);
    const inName = await send('POST', '/api/v1/products', `${body},"x\\ud800":1}`);

    expect(expectProblem(lowHalf, 422, 'validation_failed').errors?.[0].field).toBe('description');
    expect(expectProblem(inName, 422, 'validation_failed').errors?.[0].message).toMatch(
      /^must be Unicode text/,
    );
  });

  it('takes a pair written as escapes: one character outside the BMP', async () => {
    const body = JSON.stringify(productBody()).slice(0, -1);

    const response = await send(
      'POST',
      '/api/v1/products',
      `${body},"description":"\\ud83d\\ude00"}`,
    );

    expect(response.status).toBe(201);
    expect(response.body.description).toBe('😀');
  });
});

describe('a body sent with a content coding', () => {
  it.each([['gzip'], ['br'], ['deflate, gzip']])(
    'refuses Content-Encoding: %s with 415, even when the bytes are plain JSON, and creates nothing',
    async (coding) => {
      const response = await noProductCreated(() =>
        api.request('POST', '/api/v1/products', {
          rawBody: JSON.stringify(productBody()),
          headers: { ...JSON_TYPE, 'Content-Encoding': coding },
        }),
      );

      const problem = expectProblem(response, 415, 'unsupported_media_type');
      expect(problem.detail).toContain(`Content-Encoding ${coding}`);
    },
  );

  it('takes Content-Encoding: identity, which is no coding', async () => {
    const response = await api.request('POST', '/api/v1/products', {
      rawBody: JSON.stringify(productBody()),
      headers: { ...JSON_TYPE, 'Content-Encoding': 'identity' },
    });

    expect(response.status).toBe(201);
  });
});

describe('what a refused query parameter is told', () => {
  const errorsOf = async (query: string, path = '/api/v1/products') =>
    expectProblem(await api.get(`${path}?${query}`), 400, 'bad_request').errors;

  it.each([
    ['limit=-1', [{ field: 'limit', message: 'must not be less than 1' }]],
    ['limit=100000000000000000000', [{ field: 'limit', message: 'must not be greater than 100' }]],
    ['limit=-100000000000000000000', [{ field: 'limit', message: 'must not be less than 1' }]],
    ['limit=abc', [{ field: 'limit', message: 'must be an integer number' }]],
    ['=x', [{ field: '', message: 'is not a known query parameter' }]],
    ['category=toys&category=tools', [{ field: 'category', message: 'must be given once' }]],
    ['limit=5&limit=6', [{ field: 'limit', message: 'must be given once' }]],
    ['currency=ZZZ', [{ field: 'currency', message: 'must be an ISO 4217 code such as EUR' }]],
    ['currency=eur', [{ field: 'currency', message: 'must be an ISO 4217 code such as EUR' }]],
    [
      'q=%ZZ',
      [{ field: 'q', message: 'must be percent-encoded UTF-8 (a % followed by two hex digits)' }],
    ],
    [
      'q=%FF',
      [{ field: 'q', message: 'must be percent-encoded UTF-8 (a % followed by two hex digits)' }],
    ],
  ])('?%s: %j', async (query, errors) => {
    expect(await errorsOf(query)).toEqual(errors);
  });

  it('takes a currency filter that is ISO 4217 and a query escape that is UTF-8', async () => {
    const response = await api.get('/api/v1/products?currency=JPY&q=%C3%A9t%C3%A9');

    expect(response.status).toBe(200);
  });
});

describe('a body field of the wrong type', () => {
  it('is told its type only, not bounds or nesting rules that cannot apply (v2 price as a string)', async () => {
    const { price, currency, ...rest } = productBody();
    const response = await noProductCreated(() =>
      api.post('/api/v2/products', { ...rest, price: `${price} ${currency}` }),
    );

    expect(expectProblem(response, 422, 'validation_failed').errors).toEqual([
      { field: 'price', message: 'must be an object' },
    ]);
  });

  it.each([
    ['"sku": 5', { sku: 5 }, [{ field: 'sku', message: 'must be a string' }]],
    ['"price": 1.5', { price: 1.5 }, [{ field: 'price', message: 'must be a string' }]],
  ])(
    'is told its type only, not the pattern it cannot match: %s',
    async (_case, fields, errors) => {
      const response = await noProductCreated(() =>
        api.post('/api/v1/products', { ...productBody(), ...fields }),
      );

      expect(expectProblem(response, 422, 'validation_failed').errors).toEqual(errors);
    },
  );

  it.each([
    ['"lines": "x"', 'x', [{ field: 'lines', message: 'must be an array' }]],
    ['"lines": {}', {}, [{ field: 'lines', message: 'must be an array' }]],
    ['"lines": [5]', [5], [{ field: 'lines[0]', message: 'must be an object' }]],
  ])('names an order’s lines of the wrong type once: %s', async (_case, lines, errors) => {
    const response = await api.post('/api/v1/orders', {
      customerId: 'wrong-type',
      lines,
      shippingAddress: addressBody(),
    });

    expect(expectProblem(response, 422, 'validation_failed').errors).toEqual(errors);
  });

  it('is told its type only for a string field sent as a number', async () => {
    const response = await noProductCreated(() =>
      api.post('/api/v1/products', { ...productBody(), name: 42 }),
    );

    expect(expectProblem(response, 422, 'validation_failed').errors).toEqual([
      { field: 'name', message: 'must be a string' },
    ]);
  });
});
