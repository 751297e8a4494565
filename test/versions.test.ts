import { createProduct, productBody } from './support/factories';
import { expectProblem, fieldsOf } from './support/problem';
import { parseAnswer, rawExchange } from './support/raw-http';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/** API.md §11: /api/v1 and /api/v2 side by side, money shapes, and v1's deprecation headers. */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

/** A v2 body: the v1 body with money as one object. */
function v2Body(overrides: Record<string, unknown> = {}) {
  const { price, currency, ...rest } = productBody();
  return { ...rest, price: { amount: price, currency }, ...overrides };
}

async function productCount(): Promise<number> {
  const response = await api.get('/api/v1/products?limit=1');
  expect(response.status).toBe(200);
  return response.body.pagination.total;
}

describe('one product, two representations', () => {
  it('shows a product created through v1 with a price string in v1 and a money object in v2', async () => {
    const created = await createProduct(api, { price: '19.99', currency: 'EUR' });

    const v1 = await api.get(`/api/v1/products/${created.id}`);
    const v2 = await api.get(`/api/v2/products/${created.id}`);

    expect(v1.status).toBe(200);
    expect(v2.status).toBe(200);
    expect(v1.body).toMatchObject({ id: created.id, price: '19.99', currency: 'EUR' });
    expect(v2.body).toMatchObject({ id: created.id, price: { amount: '19.99', currency: 'EUR' } });
    expect(v2.body).not.toHaveProperty('currency');
    const { price: _p1, currency: _c1, ...sharedV1 } = v1.body;
    const { price: _p2, ...sharedV2 } = v2.body;
    expect(sharedV2).toEqual(sharedV1);
  });

  it('creates through v2 from a money object, answers 201 with Location, and v1 sees it', async () => {
    const body = v2Body({ price: { amount: '42.50', currency: 'USD' } });

    const created = await api.post('/api/v2/products', body);

    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v2/products/${created.body.id}`);
    expect(created.body).toMatchObject({
      sku: body.sku,
      price: { amount: '42.50', currency: 'USD' },
      version: 1,
    });
    const v1 = await api.get(`/api/v1/products/${created.body.id}`);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ sku: body.sku, price: '42.50', currency: 'USD' });
  });

  it('lists money in each version’s shape', async () => {
    const created = await createProduct(api, { category: 'versions-list', price: '3.10' });

    const v1 = await api.get('/api/v1/products?category=versions-list');
    const v2 = await api.get('/api/v2/products?category=versions-list');

    expect(v1.body.data).toEqual([expect.objectContaining({ id: created.id, price: '3.10' })]);
    expect(v2.body.data).toEqual([
      expect.objectContaining({ id: created.id, price: { amount: '3.10', currency: 'EUR' } }),
    ]);
  });

  it('applies a v2 PATCH of the price that v1 then shows', async () => {
    const created = await createProduct(api);

    const patched = await api.request('PATCH', `/api/v2/products/${created.id}`, {
      body: { price: { amount: '2500', currency: 'JPY' } },
    });

    expect(patched.status).toBe(200);
    expect(patched.body.price).toEqual({ amount: '2500', currency: 'JPY' });
    const v1 = await api.get(`/api/v1/products/${created.id}`);
    expect(v1.body).toMatchObject({ price: '2500', currency: 'JPY', version: 2 });
  });
});

describe('each version refuses the other’s money shape', () => {
  it('v2 refuses the v1 price/currency pair with 422 and creates nothing', async () => {
    const before = await productCount();

    const response = await api.post('/api/v2/products', productBody());

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(fieldsOf(problem)).toEqual(expect.arrayContaining(['price', 'currency']));
    expect(await productCount()).toBe(before);
  });

  it('v1 refuses the v2 money object with 422 and creates nothing', async () => {
    const before = await productCount();

    const response = await api.post('/api/v1/products', v2Body());

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(fieldsOf(problem)).toEqual(expect.arrayContaining(['price', 'currency']));
    expect(await productCount()).toBe(before);
  });
});

describe('minor digits per currency', () => {
  it.each([
    ['JPY', '1999'],
    ['KWD', '1.999'],
    ['EUR', '0.01'],
    ['USD', '0.00'],
  ])('accepts %s %s in v1 and v2 and gives it back unchanged', async (currency, amount) => {
    const v1 = await api.post('/api/v1/products', productBody({ price: amount, currency }));
    const v2 = await api.post('/api/v2/products', v2Body({ price: { amount, currency } }));

    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ price: amount, currency });
    expect(v2.status).toBe(201);
    expect(v2.body.price).toEqual({ amount, currency });
  });

  it.each([
    ['EUR', '19.9'],
    ['EUR', '19'],
    ['EUR', '19.999'],
    ['JPY', '19.99'],
    ['KWD', '1.99'],
    ['KWD', '1.9999'],
  ])('refuses %s %s in v1 with 422 naming price', async (currency, amount) => {
    const before = await productCount();

    const response = await api.post('/api/v1/products', productBody({ price: amount, currency }));

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(fieldsOf(problem)).toEqual(['price']);
    expect(await productCount()).toBe(before);
  });

  it.each([
    ['EUR', '19.9'],
    ['JPY', '19.99'],
    ['KWD', '1.99'],
  ])('refuses %s %s in v2 with 422 naming price', async (currency, amount) => {
    const response = await api.post('/api/v2/products', v2Body({ price: { amount, currency } }));

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(fieldsOf(problem)).toHaveLength(1);
    expect(fieldsOf(problem)[0]).toMatch(/^price(\.amount)?$/);
  });

  it.each([[19.99], [-1], ['-1.00'], ['1e3'], [' 19.99'], ['19,99']])(
    'refuses the price %p, which is no decimal string, with 422 naming price',
    async (price) => {
      const response = await api.post('/api/v1/products', productBody({ price }));

      const fields = fieldsOf(expectProblem(response, 422, 'validation_failed'));
      expect([...new Set(fields)]).toEqual(['price']);
    },
  );

  it('refuses an unknown currency with 422 naming currency', async () => {
    const response = await api.post('/api/v1/products', productBody({ currency: 'XYZ' }));

    expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toEqual(['currency']);
  });
});

describe('without API_V1_SUNSET', () => {
  it.each([
    ['a v1 success', () => api.get('/api/v1/products')],
    ['a v1 error', () => api.get('/api/v1/products?limit=0')],
  ])('%s carries no Deprecation, Sunset or deprecation link', async (_name, send) => {
    const response = await send();

    expect(response.headers.has('deprecation')).toBe(false);
    expect(response.headers.has('sunset')).toBe(false);
    expect(response.headers.get('link') ?? '').not.toMatch(/successor-version|deprecation/);
  });
});

describe('with API_V1_SUNSET=2027-06-30', () => {
  let sunsetApi: TestApp;

  beforeAll(async () => {
    sunsetApi = await startTestApp({ API_V1_SUNSET: '2027-06-30' });
  });

  afterAll(async () => {
    await sunsetApi?.close();
  });

  function expectDeprecated(response: ApiResponse) {
    const deprecation = response.headers.get('deprecation') ?? '';
    expect(deprecation).toMatch(/^@\d+$/);
    // RFC 9745: the deprecation date is not after the sunset
    expect(Number(deprecation.slice(1))).toBeLessThanOrEqual(Date.UTC(2027, 5, 30) / 1000);
    expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    const link = response.headers.get('link') ?? '';
    expect(link).toMatch(/<[^>]+>;\s*rel="successor-version"/);
    expect(link).toMatch(/<[^>]+>;\s*rel="deprecation"/);
    const deprecationDoc = /<([^>]+)>;\s*rel="deprecation"/.exec(link)?.[1] as string;
    expect(new URL(deprecationDoc).pathname).toBe('/docs/changelog');
  }

  function expectNotDeprecated(response: ApiResponse) {
    expect(response.headers.has('deprecation')).toBe(false);
    expect(response.headers.has('sunset')).toBe(false);
    expect(response.headers.get('link') ?? '').not.toMatch(/successor-version|deprecation/);
  }

  it('marks a v1 product creation and read as deprecated', async () => {
    const created = await sunsetApi.post('/api/v1/products', productBody());
    const read = await sunsetApi.get(`/api/v1/products/${created.body.id}`);

    expect(created.status).toBe(201);
    expectDeprecated(created);
    expect(read.status).toBe(200);
    expectDeprecated(read);
  });

  it('links a v1 resource to the same resource under v2 as its successor, which answers', async () => {
    const created = await sunsetApi.post('/api/v1/products', productBody());

    const read = await sunsetApi.get(`/api/v1/products/${created.body.id}`);
    const successor = /<([^>]+)>;\s*rel="successor-version"/.exec(
      read.headers.get('link') ?? '',
    )?.[1];

    expect(new URL(successor as string).pathname).toBe(`/api/v2/products/${created.body.id}`);
    const answer = await sunsetApi.get(new URL(successor as string).pathname);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(created.body.id);
  });

  it('names the v2 collection, without the v1 query, as the successor of a v1 page', async () => {
    const response = await sunsetApi.get('/api/v1/products?limit=1&page=2');

    const successor = /<([^>]+)>;\s*rel="successor-version"/.exec(
      response.headers.get('link') ?? '',
    )?.[1];
    expect(successor).toBe(`${sunsetApi.baseUrl}/api/v2/products`);
  });

  it('marks the 400 for bytes that are not HTTP/1.1 on a v1 path, and not on a v2 one', async () => {
    const v1 = parseAnswer(
      await rawExchange(
        sunsetApi.baseUrl,
        'FOO /api/v1/products HTTP/1.1\r\nHost: shop.test\r\n\r\n',
      ),
    );
    const v2 = parseAnswer(
      await rawExchange(
        sunsetApi.baseUrl,
        'FOO /api/v2/products HTTP/1.1\r\nHost: shop.test\r\n\r\n',
      ),
    );

    expect([v1.status, v2.status]).toEqual([400, 400]);
    expectDeprecated(v1 as unknown as ApiResponse);
    expect(v1.headers.get('link')).toContain(
      '<http://shop.test/api/v2/products>; rel="successor-version"',
    );
    expectNotDeprecated(v2 as unknown as ApiResponse);
  });

  it('keeps the pagination links of a v1 collection next to the deprecation links', async () => {
    await sunsetApi.post('/api/v1/products', productBody({ category: 'sunset-list' }));
    await sunsetApi.post('/api/v1/products', productBody({ category: 'sunset-list' }));

    const response = await sunsetApi.get('/api/v1/products?category=sunset-list&limit=1');

    expect(response.status).toBe(200);
    expectDeprecated(response);
    const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    expect(next).toBe(response.body.pagination.next);
  });

  it.each([
    ['404 unknown route', '/api/v1/nothing-here', true, 404],
    ['404 unknown product', '/api/v1/products/01890000-0000-7000-8000-000000000000', true, 404],
    ['400 bad query', '/api/v1/products?limit=0', true, 400],
    ['401 no credentials', '/api/v1/products', false, 401],
    ['400 malformed percent-encoding', '/api/v1/products/%zz', true, 400],
    ['404 over-long id', `/api/v1/products/${'A'.repeat(300)}`, true, 404],
  ])('marks the v1 error answer %s as deprecated', async (_name, path, auth, status) => {
    const response = await sunsetApi.get(path, { auth });

    expect(response.status).toBe(status);
    expectDeprecated(response);
  });

  it('marks a v1 405 and 304 as deprecated', async () => {
    const collection = await sunsetApi.get('/api/v1/products');
    const notModified = await sunsetApi.get('/api/v1/products', {
      headers: { 'If-None-Match': collection.headers.get('etag') as string },
    });
    const notAllowed = await sunsetApi.request('DELETE', '/api/v1/products');

    expect(notModified.status).toBe(304);
    expectDeprecated(notModified);
    expect(notAllowed.status).toBe(405);
    expectDeprecated(notAllowed);
  });

  it.each([
    ['a v2 collection', '/api/v2/products', true, 200],
    ['a v2 error', '/api/v2/products?page=1', true, 400],
    ['a v2 401', '/api/v2/products', false, 401],
    ['a public page', '/health/live', false, 200],
  ])('leaves %s without deprecation headers', async (_name, path, auth, status) => {
    const response = await sunsetApi.get(path, { auth });

    expect(response.status).toBe(status);
    expectNotDeprecated(response);
  });
});
