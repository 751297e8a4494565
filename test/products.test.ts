import { randomBytes, randomUUID } from 'node:crypto';
import { createProduct, productBody } from './support/factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/** API.md §3 products, in /api/v1 and the key cases in /api/v2. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

function expectFieldError(response: ApiResponse, field: string) {
  expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toContain(field);
}

const uniqueCategory = () => `cat-${randomBytes(5).toString('hex')}`;

/** How many live products a `q` search finds (sku and name are searched). */
async function countMatching(q: string): Promise<number> {
  const response = await api.get(`/api/v1/products?q=${encodeURIComponent(q)}`);
  expect(response.status).toBe(200);
  return response.body.pagination.total as number;
}

describe('POST /api/v1/products', () => {
  it('creates a product: 201, Location to it, and the full representation with defaults', async () => {
    const body = productBody();

    const response = await api.post('/api/v1/products', body);

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      sku: body.sku,
      name: body.name,
      description: null,
      category: 'general',
      price: '19.99',
      currency: 'EUR',
      active: true,
      version: 1,
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
    const location = new URL(response.headers.get('location') ?? '', api.baseUrl);
    expect(location.pathname).toBe(`/api/v1/products/${response.body.id}`);
  });

  it('answers on the Location URL with the same representation it returned', async () => {
    const created = await api.post('/api/v1/products', productBody({ description: 'Soft.' }));

    const fetched = await api.get(new URL(created.headers.get('location')!, api.baseUrl).pathname);

    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
  });

  it('keeps the description and active flag that were sent', async () => {
    const response = await api.post(
      '/api/v1/products',
      productBody({ description: 'Organic cotton.', active: false }),
    );

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ description: 'Organic cotton.', active: false });
  });

  it('creates the inventory item of the product with every quantity at 0', async () => {
    const product = await createProduct(api);

    const response = await api.get(`/api/v1/inventory/${product.sku}`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      sku: product.sku,
      productId: product.id,
      quantityOnHand: 0,
      quantityReserved: 0,
      quantityAvailable: 0,
      reorderLevel: 0,
    });
  });

  it('formats prices with the minor digits of each currency (JPY 0, KWD 3)', async () => {
    const yen = await api.post('/api/v1/products', productBody({ price: '1999', currency: 'JPY' }));
    const dinar = await api.post(
      '/api/v1/products',
      productBody({ price: '12.345', currency: 'KWD' }),
    );

    expect(yen.status).toBe(201);
    expect(yen.body).toMatchObject({ price: '1999', currency: 'JPY' });
    expect(dinar.status).toBe(201);
    expect(dinar.body).toMatchObject({ price: '12.345', currency: 'KWD' });
  });

  it('accepts every field at its maximum length', async () => {
    const body = productBody({
      sku: `A.b_c-${randomBytes(29).toString('hex')}`, // 6 + 58 = 64 characters
      name: 'n'.repeat(200),
      description: 'd'.repeat(5000),
      category: 'c'.repeat(100),
    });
    expect(body.sku.length).toBe(64);

    const response = await api.post('/api/v1/products', body);

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ sku: body.sku, name: body.name });
  });

  it('refuses a duplicate sku with 409 conflict and creates nothing', async () => {
    const existing = await createProduct(api);
    const before = await countMatching(existing.sku);

    const response = await api.post('/api/v1/products', productBody({ sku: existing.sku }));

    expectProblem(response, 409, 'conflict');
    expect(await countMatching(existing.sku)).toBe(before);
    expect(before).toBe(1);
    const inventory = await api.get(`/api/v1/inventory/${existing.sku}`);
    expect(inventory.body).toMatchObject({ productId: existing.id });
  });

  it('lets exactly one of two parallel creations with the same sku win; the other is 409', async () => {
    const body = productBody();

    const responses = await Promise.all([
      api.post('/api/v1/products', body),
      api.post('/api/v1/products', { ...body, name: 'Twin' }),
    ]);

    expect(responses.map((r) => r.status).sort()).toEqual([201, 409]);
    expectProblem(
      responses.find((r) => r.status === 409)!,
      409,
      'conflict',
    );
    expect(await countMatching(body.sku)).toBe(1);
    const winner = responses.find((r) => r.status === 201)!;
    const inventory = await api.get(`/api/v1/inventory/${body.sku}`);
    expect(inventory.body).toMatchObject({ productId: winner.body.id });
  });

  it.each([
    ['a sku with a space', { sku: 'bad sku' }, 'sku'],
    ['a sku with a slash', { sku: 'bad/sku' }, 'sku'],
    ['an empty sku', { sku: '' }, 'sku'],
    ['a sku of 65 characters', { sku: 'x'.repeat(65) }, 'sku'],
    ['the sku ., which no URL can name', { sku: '.' }, 'sku'],
    ['the sku .., which no URL can name', { sku: '..' }, 'sku'],
    ['no sku', { sku: undefined }, 'sku'],
    ['an empty name', { name: '' }, 'name'],
    ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name'],
    ['no name', { name: undefined }, 'name'],
    ['a description of 5001 characters', { description: 'd'.repeat(5001) }, 'description'],
    ['an empty category', { category: '' }, 'category'],
    ['a category of 101 characters', { category: 'c'.repeat(101) }, 'category'],
    ['a lower-case currency', { currency: 'eur' }, 'currency'],
    ['a four-letter currency', { currency: 'EURO' }, 'currency'],
    ['a currency that ISO 4217 does not know', { currency: 'QQQ' }, 'currency'],
    ['a negative price', { price: '-1.00' }, 'price'],
    ['a price with one decimal', { price: '19.9' }, 'price'],
    ['a price with three decimals in EUR', { price: '19.999' }, 'price'],
    ['a price without decimals in EUR', { price: '19' }, 'price'],
    ['a price with decimals in JPY', { price: '19.99', currency: 'JPY' }, 'price'],
    ['a price as a JSON number', { price: 19.99 }, 'price'],
    ['a price with a leading zero', { price: '019.99' }, 'price'],
    ['a non-boolean active', { active: 'yes' }, 'active'],
    ['a null active flag', { active: null }, 'active'],
    ['an unknown field', { colour: 'red' }, 'colour'],
  ])(
    'refuses %s with 422 validation_failed naming the field',
    async (_situation, overrides, field) => {
      const body = productBody(overrides);
      const sku = typeof body.sku === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(body.sku);
      const before = sku ? await countMatching(body.sku) : 0;

      const response = await api.post('/api/v1/products', body);

      expectFieldError(response, field);
      expect(response.body.instance).toBe('/api/v1/products');
      if (sku) expect(await countMatching(body.sku)).toBe(before);
    },
  );

  it('names `price` in v1 for an amount with the wrong number of decimals (a string there)', async () => {
    const response = await api.post('/api/v1/products', productBody({ price: '19.9' }));

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      {
        field: 'price',
        message: 'must be a decimal string with 2 fraction digits for EUR, e.g. "19.99"',
      },
    ]);
  });

  it.each([
    ['v1', '/api/v1/products', productBody({ price: '1234567890123456.00' }), 'price'],
    [
      'v2',
      '/api/v2/products',
      productBody({
        price: { amount: '1234567890123456.00', currency: 'EUR' },
        currency: undefined,
      }),
      'price.amount',
    ],
  ])(
    'tells, in %s, that an amount of 16 integer digits has too many',
    async (_v, path, body, field) => {
      const response = await api.post(path, body);

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(problem.errors).toEqual([
        {
          field,
          message:
            'must be a non-negative decimal string with at most 15 digits before the point, e.g. "19.99"',
        },
      ]);
    },
  );
});

describe('GET /api/v1/products/{id}', () => {
  it('answers 404 not_found for an id that names no product', async () => {
    const response = await api.get(`/api/v1/products/${randomUUID()}`);

    expectProblem(response, 404, 'not_found');
  });

  it('answers 404 not_found, not 400, for a malformed id', async () => {
    const response = await api.get('/api/v1/products/not-a-uuid');

    expectProblem(response, 404, 'not_found');
  });
});

describe('PUT /api/v1/products/{id}', () => {
  it('replaces the product and resets omitted optional fields to their defaults', async () => {
    const product = await createProduct(api, { description: 'Old text', active: false });
    const { sku } = product;

    const response = await api.request('PUT', `/api/v1/products/${product.id}`, {
      body: { sku, name: 'Renamed', category: 'outdoor', price: '25.00', currency: 'EUR' },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: product.id,
      sku,
      name: 'Renamed',
      description: null,
      category: 'outdoor',
      price: '25.00',
      currency: 'EUR',
      active: true,
      version: 2,
      createdAt: product.createdAt,
    });
    expect(response.headers.get('etag')).toBe('"2"');
    const fetched = await api.get(`/api/v1/products/${product.id}`);
    expect(fetched.body).toEqual(response.body);
  });

  it('refuses a body that lacks a required field with 422', async () => {
    const product = await createProduct(api);

    const response = await api.request('PUT', `/api/v1/products/${product.id}`, {
      body: { sku: product.sku, name: 'Only a name' },
    });

    expectFieldError(response, 'category');
  });

  it('refuses to change the sku with 422 and changes nothing', async () => {
    const product = await createProduct(api);

    const response = await api.request('PUT', `/api/v1/products/${product.id}`, {
      body: productBody({ name: 'Would be renamed' }),
    });

    expectFieldError(response, 'sku');
    const fetched = await api.get(`/api/v1/products/${product.id}`);
    expect(fetched.body).toMatchObject({ sku: product.sku, name: product.name, version: 1 });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('PUT', `/api/v1/products/${randomUUID()}`, {
      body: productBody(),
    });

    expectProblem(response, 404, 'not_found');
  });
});

describe('PATCH /api/v1/products/{id}', () => {
  it('changes only the fields sent and increments the version', async () => {
    const product = await createProduct(api, { description: 'Keep me', active: false });

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { name: 'New name' },
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...product,
      name: 'New name',
      version: 2,
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
  });

  it('clears the description when it is sent as null', async () => {
    const product = await createProduct(api, { description: 'Remove me' });

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { description: null },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ description: null, name: product.name, version: 2 });
  });

  it('keeps the currency when only the price is sent', async () => {
    const product = await createProduct(api, { price: '1999', currency: 'JPY' });

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { price: '2500' },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ price: '2500', currency: 'JPY', version: 2 });
  });

  it("validates a price sent alone against the product's currency", async () => {
    const product = await createProduct(api, { price: '1999', currency: 'JPY' });

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { price: '25.00' },
    });

    expectFieldError(response, 'price');
    const fetched = await api.get(`/api/v1/products/${product.id}`);
    expect(fetched.body).toMatchObject({ price: '1999', currency: 'JPY', version: 1 });
  });

  it('changes price and currency together', async () => {
    const product = await createProduct(api);

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { price: '1.234', currency: 'KWD' },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ price: '1.234', currency: 'KWD', version: 2 });
  });

  it('refuses the currency alone with 422 and changes nothing', async () => {
    const product = await createProduct(api);

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { currency: 'USD' },
    });

    expectFieldError(response, 'currency');
    const fetched = await api.get(`/api/v1/products/${product.id}`);
    expect(fetched.body).toMatchObject({ price: '19.99', currency: 'EUR', version: 1 });
  });

  it('refuses to change the sku with 422', async () => {
    const product = await createProduct(api);

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { sku: `${product.sku}-other` },
    });

    expectFieldError(response, 'sku');
    const fetched = await api.get(`/api/v1/products/${product.id}`);
    expect(fetched.body).toMatchObject({ sku: product.sku, version: 1 });
  });

  it.each([
    ['an empty name', { name: '' }, 'name'],
    ['a negative price', { price: '-5.00' }, 'price'],
    ['an unknown field', { stock: 3 }, 'stock'],
    ['a null name, which is not nullable', { name: null }, 'name'],
    ['a null active flag', { active: null }, 'active'],
    ['a null price', { price: null }, 'price'],
    ['a null sku', { sku: null }, 'sku'],
  ])('refuses %s with 422 and changes nothing', async (_situation, body, field) => {
    const product = await createProduct(api);

    const response = await api.request('PATCH', `/api/v1/products/${product.id}`, { body });

    expectFieldError(response, field);
    expect((await api.get(`/api/v1/products/${product.id}`)).body).toEqual(product);
  });

  it('answers 404 for a malformed id', async () => {
    const response = await api.request('PATCH', '/api/v1/products/12345', {
      body: { name: 'x' },
    });

    expectProblem(response, 404, 'not_found');
  });
});

describe('DELETE /api/v1/products/{id}', () => {
  it('archives the product: 204, then it and its inventory item are gone', async () => {
    const product = await createProduct(api);

    const response = await api.request('DELETE', `/api/v1/products/${product.id}`);

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectProblem(await api.get(`/api/v1/products/${product.id}`), 404, 'not_found');
    expect(await countMatching(product.sku)).toBe(0);
    expectProblem(await api.get(`/api/v1/inventory/${product.sku}`), 404, 'not_found');
  });

  it('answers 404 to a second DELETE', async () => {
    const product = await createProduct(api);
    await api.request('DELETE', `/api/v1/products/${product.id}`);

    const response = await api.request('DELETE', `/api/v1/products/${product.id}`);

    expectProblem(response, 404, 'not_found');
  });

  it('answers 404 to an unknown id', async () => {
    const response = await api.request('DELETE', `/api/v1/products/${randomUUID()}`);

    expectProblem(response, 404, 'not_found');
  });

  it('answers 404 to a PUT or PATCH of an archived product', async () => {
    const product = await createProduct(api);
    await api.request('DELETE', `/api/v1/products/${product.id}`);

    const put = await api.request('PUT', `/api/v1/products/${product.id}`, {
      body: productBody({ sku: product.sku }),
    });
    const patch = await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { name: 'Ghost' },
    });

    expectProblem(put, 404, 'not_found');
    expectProblem(patch, 404, 'not_found');
  });
});

describe('GET /api/v1/products (inactive products)', () => {
  it('lists inactive products and filters by active', async () => {
    const category = uniqueCategory();
    const active = await createProduct(api, { category });
    const inactive = await createProduct(api, { category, active: false });

    const all = await api.get(`/api/v1/products?category=${category}`);
    const onlyInactive = await api.get(`/api/v1/products?category=${category}&active=false`);
    const onlyActive = await api.get(`/api/v1/products?category=${category}&active=true`);

    expect(all.status).toBe(200);
    expect(all.body.pagination.total).toBe(2);
    expect(all.body.data.map((p: { id: string }) => p.id).sort()).toEqual(
      [active.id, inactive.id].sort(),
    );
    expect(onlyInactive.status).toBe(200);
    expect(onlyInactive.body.data).toEqual([inactive]);
    expect(onlyInactive.body.pagination.total).toBe(1);
    expect(onlyActive.body.data).toEqual([active]);
  });

  it('still answers GET by id for an inactive product', async () => {
    const inactive = await createProduct(api, { active: false });

    const response = await api.get(`/api/v1/products/${inactive.id}`);

    expect(response.status).toBe(200);
    expect(response.body).toEqual(inactive);
  });
});

describe('/api/v2/products', () => {
  const v2Body = (amount: string, currency: string) => {
    const { price: _price, currency: _currency, ...rest } = productBody();
    return { ...rest, price: { amount, currency } };
  };

  it('creates a product with a money object and a v2 Location', async () => {
    const { price: _price, currency: _currency, ...rest } = productBody();
    const body = { ...rest, price: { amount: '19.99', currency: 'EUR' } };

    const response = await api.post('/api/v2/products', body);

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      sku: body.sku,
      name: body.name,
      description: null,
      category: 'general',
      price: { amount: '19.99', currency: 'EUR' },
      active: true,
      version: 1,
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
    const location = new URL(response.headers.get('location') ?? '', api.baseUrl).pathname;
    expect(location).toBe(`/api/v2/products/${response.body.id}`);
    const fetched = await api.get(location);
    expect(fetched.body).toEqual(response.body);
  });

  it('shows a v1 product with a money object, and the same product in both versions', async () => {
    const product = await createProduct(api, { price: '12.345', currency: 'KWD' });

    const response = await api.get(`/api/v2/products/${product.id}`);

    expect(response.status).toBe(200);
    const { price: _price, currency: _currency, ...shared } = product;
    expect(response.body).toEqual({ ...shared, price: { amount: '12.345', currency: 'KWD' } });
  });

  it("prices in HUF with the 2 minor digits of ISO 4217 (not ICU's 0), and reads it back", async () => {
    const created = await api.post('/api/v2/products', v2Body('1000.00', 'HUF'));
    const whole = await api.post('/api/v2/products', v2Body('1000', 'HUF'));

    expect(created.status).toBe(201);
    expect(created.body.price).toEqual({ amount: '1000.00', currency: 'HUF' });
    const fetched = await api.get(`/api/v2/products/${created.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
    const v1 = await api.get(`/api/v1/products/${created.body.id}`);
    expect(v1.body).toMatchObject({ price: '1000.00', currency: 'HUF' });
    expect(fieldsOf(expectProblem(whole, 422, 'validation_failed'))).toEqual(['price.amount']);
  });

  it('refuses a code ISO 4217 lists without minor units (XAU) on `price.currency`', async () => {
    const response = await api.post('/api/v2/products', v2Body('1.00', 'XAU'));

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      {
        field: 'price.currency',
        message:
          'must be an ISO 4217 currency code with minor units; ISO 4217 lists XAU without any',
      },
    ]);
  });

  it('refuses the v1 price/currency pair with 422', async () => {
    const response = await api.post('/api/v2/products', productBody());

    expectFieldError(response, 'currency');
  });

  it('refuses an amount with the wrong number of decimals with 422 on `price.amount`', async () => {
    const response = await api.post('/api/v2/products', v2Body('19.9', 'EUR'));

    const problem = expectProblem(response, 422, 'validation_failed');
    const message = 'must be a decimal string with 2 fraction digits for EUR, e.g. "19.99"';
    expect(problem.errors).toEqual([{ field: 'price.amount', message }]);
    expect(problem.detail).toBe(`price.amount ${message}`);
  });

  it('names `price.amount` and `price.currency` in PUT and PATCH too', async () => {
    const product = await createProduct(api);
    const path = `/api/v2/products/${product.id}`;
    const { sku, name, category } = productBody({ sku: product.sku });

    const put = await api.request('PUT', path, {
      body: { sku, name, category, price: { amount: '5', currency: 'EUR' } },
    });
    const patchAmount = await api.request('PATCH', path, {
      body: { price: { amount: '5.00', currency: 'JPY' } },
    });
    const patchCurrency = await api.request('PATCH', path, {
      body: { price: { amount: '5.00', currency: 'QQQ' } },
    });

    expect(fieldsOf(expectProblem(put, 422, 'validation_failed'))).toEqual(['price.amount']);
    expect(fieldsOf(expectProblem(patchAmount, 422, 'validation_failed'))).toEqual([
      'price.amount',
    ]);
    expect(fieldsOf(expectProblem(patchCurrency, 422, 'validation_failed'))).toEqual([
      'price.currency',
    ]);
    expect((await api.get(path)).body).toMatchObject({ version: 1 });
  });

  it('refuses a null price in PATCH with 422', async () => {
    const product = await createProduct(api);

    const response = await api.request('PATCH', `/api/v2/products/${product.id}`, {
      body: { price: null },
    });

    expectFieldError(response, 'price');
  });

  it('patches the price as a money object', async () => {
    const product = await createProduct(api);

    const response = await api.request('PATCH', `/api/v2/products/${product.id}`, {
      body: { price: { amount: '1500', currency: 'JPY' } },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      price: { amount: '1500', currency: 'JPY' },
      version: 2,
    });
  });

  it('deletes with 204, after which v1 answers 404 too', async () => {
    const product = await createProduct(api);

    const response = await api.request('DELETE', `/api/v2/products/${product.id}`);

    expect(response.status).toBe(204);
    expectProblem(await api.get(`/api/v1/products/${product.id}`), 404, 'not_found');
  });
});
