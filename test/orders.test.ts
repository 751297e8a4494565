import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  addressBody,
  createApiKey,
  createOrder,
  customerIdFor,
  ORDER_TEST_ENV,
  orderBody,
  setOrderStatus,
  stockedProduct,
  stockOf,
} from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/** API.md §3 orders: creation with a catalog snapshot, reads, PATCH, ownership (§2). */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
});

afterAll(async () => {
  await api?.close();
});

const orderPath = (id: string, version = 1) => `/api/v${version}/orders/${id}`;

describe('POST /api/v1/orders', () => {
  it('creates a pending order: 201, Location, lines priced and named from the catalog', async () => {
    const shirt = await stockedProduct(api, 10, { name: 'Red shirt', price: '19.99' });
    const mug = await stockedProduct(api, 5, { name: 'Mug', price: '7.50' });
    const body = orderBody(
      [
        { sku: shirt.sku, quantity: 2 },
        { sku: mug.sku, quantity: 3 },
      ],
      { notes: 'Leave at the door.' },
    );

    const response = await api.post('/api/v1/orders', body);

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      customerId: body.customerId,
      status: 'pending',
      currency: 'EUR',
      lines: [
        {
          sku: shirt.sku,
          productId: shirt.id,
          name: 'Red shirt',
          quantity: 2,
          unitPrice: '19.99',
          lineTotal: '39.98',
        },
        {
          sku: mug.sku,
          productId: mug.id,
          name: 'Mug',
          quantity: 3,
          unitPrice: '7.50',
          lineTotal: '22.50',
        },
      ],
      total: '62.48',
      shippingAddress: { ...addressBody(), line2: null },
      notes: 'Leave at the door.',
      version: 1,
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
    expect(response.headers.get('etag')).toBe('"1"');
    const location = new URL(response.headers.get('location') ?? '', api.baseUrl);
    expect(location.pathname).toBe(`/api/v1/orders/${response.body.id}`);
    const fetched = await api.get(location.pathname);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(response.body);
  });

  it('reserves the ordered units: reserved grows, on hand stays', async () => {
    const product = await stockedProduct(api, 10);

    await createOrder(api, [{ sku: product.sku, quantity: 4 }]);

    expect(await stockOf(api, product.sku)).toEqual({
      quantityOnHand: 10,
      quantityReserved: 4,
      quantityAvailable: 6,
    });
  });

  it('keeps its snapshot when the product is renamed, repriced and archived later', async () => {
    const product = await stockedProduct(api, 10, { name: 'Old name', price: '10.00' });
    const order = await createOrder(api, [{ sku: product.sku, quantity: 1 }]);

    await api.request('PATCH', `/api/v1/products/${product.id}`, {
      body: { name: 'New name', price: '99.00' },
    });
    await api.request('DELETE', `/api/v1/products/${product.id}`);
    const fetched = await api.get(orderPath(order.id));

    expect(fetched.status).toBe(200);
    expect(fetched.body.lines[0]).toMatchObject({
      name: 'Old name',
      unitPrice: '10.00',
      productId: product.id,
    });
    expect(fetched.body.total).toBe('10.00');
  });

  it('keeps line2 and formats money with the currency’s minor digits (JPY has none)', async () => {
    const product = await stockedProduct(api, 10, { price: '1500', currency: 'JPY' });

    const response = await api.post(
      '/api/v1/orders',
      orderBody([{ sku: product.sku, quantity: 3 }], {
        shippingAddress: addressBody({ line2: 'Floor 3', country: 'JP' }),
      }),
    );

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      currency: 'JPY',
      total: '4500',
      lines: [{ unitPrice: '1500', lineTotal: '4500' }],
      shippingAddress: { line2: 'Floor 3', country: 'JP' },
    });
  });

  it('prices lines of products stored with fewer digits (before ISO 4217) at the currency’s digits', async () => {
    const current = await stockedProduct(api, 10, { price: '1000.00', currency: 'HUF' });
    const older = await stockedProduct(api, 10, { price: '1.00', currency: 'HUF' });
    // as a row written while minor digits came from ICU, which gives HUF 0: 1500 HUF
    await api.app
      .get(DataSource)
      .query('UPDATE products SET price_minor = 1500, price_scale = 0 WHERE id = $1', [older.id]);

    const response = await api.post(
      '/api/v1/orders',
      orderBody([
        { sku: older.sku, quantity: 2 },
        { sku: current.sku, quantity: 1 },
      ]),
    );

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      currency: 'HUF',
      total: '4000.00',
      lines: [
        { unitPrice: '1500.00', lineTotal: '3000.00' },
        { unitPrice: '1000.00', lineTotal: '1000.00' },
      ],
    });
  });

  describe('answers 422 validation_failed naming the field, and reserves nothing', () => {
    let sku: string;
    beforeAll(async () => {
      sku = (await stockedProduct(api, 50)).sku;
    });

    const line = (overrides: Record<string, unknown> = {}) => ({ sku, quantity: 1, ...overrides });

    it.each([
      ['no lines', () => ({ lines: [] }), 'lines'],
      ['lines that are not an array', () => ({ lines: { sku: 'A' } }), 'lines'],
      [
        '101 lines',
        () => ({ lines: Array.from({ length: 101 }, (_, i) => line({ sku: `S-${i}` })) }),
        'lines',
      ],
      ['quantity 0', () => ({ lines: [line({ quantity: 0 })] }), 'lines[0].quantity'],
      ['quantity 10001', () => ({ lines: [line({ quantity: 10001 })] }), 'lines[0].quantity'],
      ['a fractional quantity', () => ({ lines: [line({ quantity: 1.5 })] }), 'lines[0].quantity'],
      ['a quantity as a string', () => ({ lines: [line({ quantity: '1' })] }), 'lines[0].quantity'],
      ['a missing sku', () => ({ lines: [{ quantity: 1 }] }), 'lines[0].sku'],
      [
        'an unknown member in a line',
        () => ({ lines: [line({ price: '1.00' })] }),
        'lines[0].price',
      ],
      ['the same sku twice', () => ({ lines: [line(), line({ quantity: 2 })] }), 'lines[1].sku'],
      ['an unknown sku', () => ({ lines: [line(), line({ sku: 'NO-SUCH-SKU' })] }), 'lines[1].sku'],
      ['no shipping address', () => ({ shippingAddress: undefined }), 'shippingAddress'],
      [
        'a country that is not ISO 3166-1 alpha-2',
        () => ({ shippingAddress: addressBody({ country: 'XX' }) }),
        'shippingAddress.country',
      ],
      [
        'a lower-case country',
        () => ({ shippingAddress: addressBody({ country: 'de' }) }),
        'shippingAddress.country',
      ],
      [
        'an address without a city',
        () => ({ shippingAddress: addressBody({ city: undefined }) }),
        'shippingAddress.city',
      ],
      [
        'an unknown address member',
        () => ({ shippingAddress: addressBody({ state: 'BE' }) }),
        'shippingAddress.state',
      ],
      ['notes over 2000 characters', () => ({ notes: 'x'.repeat(2001) }), 'notes'],
      ['a customerId over 64 characters', () => ({ customerId: 'c'.repeat(65) }), 'customerId'],
      ['an empty customerId', () => ({ customerId: '' }), 'customerId'],
      ['no customerId from staff', () => ({ customerId: undefined }), 'customerId'],
      ['an unknown field', () => ({ status: 'confirmed' }), 'status'],
    ])('%s', async (_case, change, field) => {
      const before = await stockOf(api, sku);

      const response = await api.post('/api/v1/orders', { ...orderBody([line()]), ...change() });

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(fieldsOf(problem)).toContain(field);
      expect(await stockOf(api, sku)).toEqual(before);
    });

    it('says which SKU names no product, in a detail that reads as a sentence', async () => {
      const response = await api.post(
        '/api/v1/orders',
        orderBody([line(), { sku: 'NO-SUCH-SKU', quantity: 1 }]),
      );

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(problem.errors).toEqual([
        { field: 'lines[1].sku', message: 'names no product: none has SKU "NO-SUCH-SKU"' },
      ]);
      expect(problem.detail).toBe('lines[1].sku names no product: none has SKU "NO-SUCH-SKU"');
    });

    it('names an archived product’s line', async () => {
      const archived = await stockedProduct(api, 5);
      await api.request('DELETE', `/api/v1/products/${archived.id}`);

      const response = await api.post(
        '/api/v1/orders',
        orderBody([line(), { sku: archived.sku, quantity: 1 }]),
      );

      expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toEqual(['lines[1].sku']);
      expect((await stockOf(api, sku)).quantityReserved).toBe(0);
    });

    it('names an inactive product’s line', async () => {
      const inactive = await stockedProduct(api, 5, { active: false });

      const response = await api.post(
        '/api/v1/orders',
        orderBody([{ sku: inactive.sku, quantity: 1 }, line()]),
      );

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(problem.errors).toEqual([
        {
          field: 'lines[0].sku',
          message: `names product "${inactive.sku}", which is not active and cannot be ordered`,
        },
      ]);
    });

    it('names a line priced in another currency than the first', async () => {
      const dollars = await stockedProduct(api, 5, { currency: 'USD' });

      const response = await api.post(
        '/api/v1/orders',
        orderBody([line(), { sku: dollars.sku, quantity: 1 }]),
      );

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(problem.errors).toEqual([
        {
          field: 'lines[1].sku',
          message:
            'names a product priced in USD; an order has one currency and its first line is in EUR',
        },
      ]);
      expect((await stockOf(api, dollars.sku)).quantityReserved).toBe(0);
    });
  });

  it('answers 409 insufficient_stock naming the short line with what is available', async () => {
    const product = await stockedProduct(api, 2);

    const response = await api.post(
      '/api/v1/orders',
      orderBody([{ sku: product.sku, quantity: 3 }]),
    );

    const problem = expectProblem(response, 409, 'insufficient_stock');
    expect(problem.errors).toEqual([
      { field: 'lines[0].quantity', message: expect.stringMatching(/\b2 available/) },
    ]);
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(0);
  });

  it('answers 401 without credentials and 403 for a role without orders:write', async () => {
    const product = await stockedProduct(api, 5);
    const analyst = await createApiKey(api, 'analyst');
    const body = orderBody([{ sku: product.sku, quantity: 1 }]);

    expectProblem(await api.post('/api/v1/orders', body, { auth: false }), 401, 'unauthenticated');
    expectProblem(await api.post('/api/v1/orders', body, analyst.as), 403, 'forbidden');
    expect((await stockOf(api, product.sku)).quantityReserved).toBe(0);
  });
});

describe('/api/v2/orders', () => {
  it('shows totals with more digits than any one price, as the OpenAPI documents allow', async () => {
    const product = await stockedProduct(api, 10, { price: '999999999999999.99' });

    const created = await api.post(
      '/api/v2/orders',
      orderBody([{ sku: product.sku, quantity: 2 }]),
    );

    expect(created.status).toBe(201);
    expect(created.body.total).toEqual({ amount: '1999999999999999.98', currency: 'EUR' });
    expect(created.body.lines[0].lineTotal).toEqual(created.body.total);
    const read = await api.get(`/api/v2/orders/${created.body.id}`);
    expect(read.body.total).toEqual(created.body.total);
  });

  it('creates and shows orders with money objects, and the order currency as in v1', async () => {
    const product = await stockedProduct(api, 10, { price: '5.25' });

    const response = await api.post(
      '/api/v2/orders',
      orderBody([{ sku: product.sku, quantity: 2 }]),
    );

    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/v2/orders/${response.body.id}`);
    expect(response.body.currency).toBe('EUR');
    expect(response.body.total).toEqual({ amount: '10.50', currency: 'EUR' });
    expect(response.body.lines).toEqual([
      {
        sku: product.sku,
        productId: product.id,
        name: product.name,
        quantity: 2,
        unitPrice: { amount: '5.25', currency: 'EUR' },
        lineTotal: { amount: '10.50', currency: 'EUR' },
      },
    ]);
    const v1 = await api.get(orderPath(response.body.id, 1));
    const { total: _t, lines: _l, ...shared } = v1.body;
    const { total: _t2, lines: _l2, ...sharedV2 } = response.body;
    expect(sharedV2).toEqual(shared);
  });

  it('lists with cursors only: page is 400', async () => {
    const response = await api.get('/api/v2/orders?page=1');

    expectProblem(response, 400, 'bad_request');
  });
});

describe('GET /api/v1/orders', () => {
  let sku: string;
  let customerId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    sku = (await stockedProduct(api, 1000, { price: '1.00' })).sku;
    customerId = customerIdFor('list');
    for (const quantity of [3, 1, 2]) {
      ids.push((await createOrder(api, [{ sku, quantity }], { customerId })).id);
    }
    await setOrderStatus(api, ids[1], 'confirmed');
  });

  const listed = async (query: string) => {
    const response = await api.get(`/api/v1/orders?${query}`);
    expect(response.status).toBe(200);
    return response;
  };

  it('filters by customerId, newest first by default, in the collection envelope', async () => {
    const response = await listed(`customerId=${customerId}`);

    expect(response.body.data.map((o: { id: string }) => o.id)).toEqual([...ids].reverse());
    expect(response.body.pagination).toMatchObject({ total: 3, limit: 20, next: null });
    expect(response.body.data[0].lines).toHaveLength(1);
  });

  it('filters by status', async () => {
    const confirmed = await listed(`customerId=${customerId}&status=confirmed`);
    const pending = await listed(`customerId=${customerId}&status=pending`);

    expect(confirmed.body.data.map((o: { id: string }) => o.id)).toEqual([ids[1]]);
    expect(pending.body.pagination.total).toBe(2);
  });

  it('filters by creation time: createdFrom inclusive, createdTo exclusive', async () => {
    const second = (await api.get(orderPath(ids[1]))).body;

    const from = await listed(
      `customerId=${customerId}&createdFrom=${encodeURIComponent(second.createdAt)}`,
    );
    const to = await listed(
      `customerId=${customerId}&createdTo=${encodeURIComponent(second.createdAt)}`,
    );

    expect(from.body.data.map((o: { id: string }) => o.id)).toEqual(
      expect.arrayContaining([ids[1], ids[2]]),
    );
    expect(from.body.data.map((o: { id: string }) => o.id)).not.toContain(ids[0]);
    expect(to.body.data.map((o: { id: string }) => o.id)).not.toContain(ids[1]);
    expect(to.body.data.map((o: { id: string }) => o.id)).toContain(ids[0]);
    const future = await listed('createdFrom=2999-01-01T00:00:00Z');
    expect(future.body.pagination.total).toBe(0);
  });

  it('takes any RFC 3339 offset, up to ±23:59, as the same instant', async () => {
    const second = (await api.get(orderPath(ids[1]))).body;
    // the same instant written 23:59 ahead, beyond PostgreSQL's own ±15:59
    const ahead = new Date(Date.parse(second.createdAt) + (23 * 60 + 59) * 60_000)
      .toISOString()
      .replace('Z', '+23:59');

    const from = await listed(`customerId=${customerId}&createdFrom=${encodeURIComponent(ahead)}`);
    const to = await listed(`customerId=${customerId}&createdTo=${encodeURIComponent(ahead)}`);

    expect([from.status, to.status]).toEqual([200, 200]);
    expect(from.body.data.map((o: { id: string }) => o.id)).toContain(ids[1]);
    expect(to.body.data.map((o: { id: string }) => o.id)).not.toContain(ids[1]);
    const events = await api.get(`/api/v1/events?createdFrom=${encodeURIComponent(ahead)}`);
    expect(events.status).toBe(200);
  });

  it('takes lower-case t and z and the years 0001–0099, as RFC 3339 §5.6 allows, in v1 and v2', async () => {
    const second = (await api.get(orderPath(ids[1]))).body;
    const lower = (second.createdAt as string).toLowerCase();
    const mine = (response: { body: { data: { id: string }[] } }) =>
      response.body.data.map((o) => o.id);

    const from = await listed(`customerId=${customerId}&createdFrom=${lower}`);
    const to = await api.get(`/api/v2/orders?customerId=${customerId}&createdTo=${lower}`);
    const ancient = await listed(`customerId=${customerId}&createdFrom=0001-01-01T00:00:00Z`);
    const first = await listed(`customerId=${customerId}&createdFrom=0001-01-01t00:30:00%2B00:30`);
    const before100 = await listed(`customerId=${customerId}&createdTo=0099-12-31T23:59:59Z`);

    expect(mine(from)).toEqual([ids[2], ids[1]]);
    expect([to.status, mine(to)]).toEqual([200, [ids[0]]]);
    expect(mine(ancient)).toEqual([...ids].reverse());
    expect(mine(first)).toEqual([...ids].reverse());
    expect(before100.body.pagination.total).toBe(0);
  });

  it.each([
    ['garbage', 'garbage', 'must be an RFC 3339 date-time, e.g. 2026-11-21T10:00:00Z'],
    [
      'a day that does not exist',
      '2026-02-30T00:00:00Z',
      'must be an RFC 3339 date-time, e.g. 2026-11-21T10:00:00Z',
    ],
    [
      'the year 0, which PostgreSQL does not have',
      '0000-12-31T23:59:59Z',
      'must be an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
    ],
  ])('answers 400 for a createdFrom of %s, naming it once', async (_case, value, message) => {
    const response = await api.get(`/api/v1/orders?createdFrom=${encodeURIComponent(value)}`);

    const problem = expectProblem(response, 400, 'bad_request');
    expect(problem.errors).toEqual([{ field: 'createdFrom', message }]);
    expect(problem.detail).toBe(`createdFrom ${message}`);
  });

  it.each([
    ['total', ['1.00', '2.00', '3.00']],
    ['-total', ['3.00', '2.00', '1.00']],
  ])('sorts by %s', async (sort, totals) => {
    const response = await listed(`customerId=${customerId}&sort=${sort}`);

    expect(response.body.data.map((o: { total: string }) => o.total)).toEqual(totals);
  });

  it('sorts by status and by updatedAt', async () => {
    const byStatus = await listed(`customerId=${customerId}&sort=status`);
    const byUpdate = await listed(`customerId=${customerId}&sort=-updatedAt`);

    expect(byStatus.body.data.map((o: { status: string }) => o.status)).toEqual([
      'confirmed',
      'pending',
      'pending',
    ]);
    expect(byUpdate.body.data[0].id).toBe(ids[1]);
  });

  it('walks every order with cursors, and with v1 pages', async () => {
    const first = await listed(`customerId=${customerId}&limit=2`);
    const next = await api.get(first.body.pagination.next.replace(api.baseUrl, ''));
    const page2 = await listed(`customerId=${customerId}&limit=2&page=2`);

    expect(next.status).toBe(200);
    expect([...first.body.data, ...next.body.data].map((o: { id: string }) => o.id)).toEqual(
      [...ids].reverse(),
    );
    expect(page2.body.data.map((o: { id: string }) => o.id)).toEqual([ids[0]]);
    expect(page2.body.pagination.page).toBe(2);
  });

  it.each([
    ['an unknown status', 'status=lost', 'status'],
    ['a createdFrom that is not RFC 3339', 'createdFrom=yesterday', 'createdFrom'],
    ['a date without a time', 'createdTo=2026-01-01', 'createdTo'],
    ['an unknown sort field', 'sort=customer', 'sort'],
    ['an unknown parameter', 'colour=red', 'colour'],
  ])('answers 400 for %s', async (_case, query, field) => {
    const problem = expectProblem(await api.get(`/api/v1/orders?${query}`), 400, 'bad_request');

    expect(fieldsOf(problem)).toContain(field);
  });
});

describe('PATCH /api/v1/orders/{id}', () => {
  let sku: string;
  beforeAll(async () => {
    sku = (await stockedProduct(api, 100)).sku;
  });

  it('changes notes and the shipping address of a pending order, bumping the version', async () => {
    const order = await createOrder(api, [{ sku, quantity: 1 }]);
    const address = addressBody({ name: 'Grace Hopper', line2: 'c/o Navy', country: 'US' });

    const response = await api.request('PATCH', orderPath(order.id), {
      body: { notes: 'Ring twice.', shippingAddress: address },
      headers: { 'If-Match': '"1"' },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"2"');
    expect(response.body).toMatchObject({
      notes: 'Ring twice.',
      shippingAddress: address,
      version: 2,
      status: 'pending',
      lines: order.lines,
      total: order.total,
    });
    expect((await api.get(orderPath(order.id))).body).toEqual(response.body);
  });

  it('changes only what is sent; null clears the notes', async () => {
    const order = await createOrder(api, [{ sku, quantity: 1 }], { notes: 'first' });

    const response = await api.request('PATCH', orderPath(order.id), { body: { notes: null } });

    expect(response.status).toBe(200);
    expect(response.body.notes).toBeNull();
    expect(response.body.shippingAddress).toEqual(order.shippingAddress);
  });

  it('keeps the version when the address sent equals the stored one (line2 absent or null, any member order), in v1 and v2', async () => {
    const order = await createOrder(api, [{ sku, quantity: 1 }]);
    const { name, line1, city, postalCode, country } = addressBody();
    const sameAddresses = [
      { name, line1, city, postalCode, country },
      { name, line1, line2: null, city, postalCode, country },
      { country, postalCode, city, line2: null, line1, name },
    ];

    for (const [i, shippingAddress] of sameAddresses.entries()) {
      const response = await api.request('PATCH', orderPath(order.id, i === 2 ? 2 : 1), {
        body: { shippingAddress },
        headers: { 'If-Match': '"1"' },
      });

      expect([i, response.status, response.headers.get('etag')]).toEqual([i, 200, '"1"']);
      expect(response.body).toMatchObject({ version: 1, updatedAt: order.updatedAt });
    }
    expect((await api.get(orderPath(order.id))).body).toEqual(order);
  });

  it('keeps the version when the same line2 is sent again, and bumps it once line2 changes', async () => {
    const address = addressBody({ line2: 'Floor 3' });
    const order = await createOrder(api, [{ sku, quantity: 1 }], { shippingAddress: address });

    const same = await api.request('PATCH', orderPath(order.id), {
      body: { shippingAddress: address },
    });
    const cleared = await api.request('PATCH', orderPath(order.id), {
      body: { shippingAddress: { ...address, line2: null } },
    });

    expect(same.body.version).toBe(1);
    expect(cleared.body).toMatchObject({ version: 2, shippingAddress: { line2: null } });
  });

  it('answers 412 for a stale If-Match and changes nothing', async () => {
    const order = await createOrder(api, [{ sku, quantity: 1 }]);

    const response = await api.request('PATCH', orderPath(order.id), {
      body: { notes: 'late' },
      headers: { 'If-Match': '"7"' },
    });

    expectProblem(response, 412, 'precondition_failed');
    expect((await api.get(orderPath(order.id))).body).toEqual(order);
  });

  it('answers 409 conflict once the order is no longer pending', async () => {
    const order = await createOrder(api, [{ sku, quantity: 1 }]);
    await setOrderStatus(api, order.id, 'confirmed');

    const response = await api.request('PATCH', orderPath(order.id), { body: { notes: 'x' } });

    expectProblem(response, 409, 'conflict');
    expect((await api.get(orderPath(order.id))).body.notes).toBeNull();
  });

  it.each([
    ['the status', { status: 'confirmed' }, 'status'],
    ['the lines', { lines: [] }, 'lines'],
    ['a null address', { shippingAddress: null }, 'shippingAddress'],
    ['a partial address', { shippingAddress: { city: 'Paris' } }, 'shippingAddress.name'],
  ])('answers 422 for %s', async (_case, body, field) => {
    const order = await createOrder(api, [{ sku, quantity: 1 }]);

    const response = await api.request('PATCH', orderPath(order.id), { body });

    expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toContain(field);
  });

  it('answers 404 for an unknown order and for an id that cannot exist', async () => {
    expectProblem(
      await api.request('PATCH', orderPath(randomUUID()), { body: { notes: 'x' } }),
      404,
      'not_found',
    );
    expectProblem(await api.get('/api/v1/orders/not-a-uuid'), 404, 'not_found');
  });
});

describe('a customer principal', () => {
  let sku: string;
  let alice: Awaited<ReturnType<typeof createApiKey>>;
  let bob: Awaited<ReturnType<typeof createApiKey>>;
  let aliceId: string;
  let bobId: string;

  beforeAll(async () => {
    sku = (await stockedProduct(api, 100)).sku;
    aliceId = customerIdFor('alice');
    bobId = customerIdFor('bob');
    alice = await createApiKey(api, 'customer', aliceId);
    bob = await createApiKey(api, 'customer', bobId);
  });

  const customerOrder = (overrides: Record<string, unknown> = {}) => {
    const { customerId: _omitted, ...body } = orderBody([{ sku, quantity: 1 }]);
    return { ...body, ...overrides };
  };

  it('places orders for itself: without customerId, or with its own', async () => {
    const implicit = await api.post('/api/v1/orders', customerOrder(), alice.as);
    const explicit = await api.post(
      '/api/v1/orders',
      customerOrder({ customerId: aliceId }),
      alice.as,
    );

    expect(implicit.status).toBe(201);
    expect(implicit.body.customerId).toBe(aliceId);
    expect(explicit.status).toBe(201);
    expect(explicit.body.customerId).toBe(aliceId);
  });

  it('gets 403 forbidden when it names another customer, and nothing is reserved', async () => {
    const before = await stockOf(api, sku);

    const response = await api.post(
      '/api/v1/orders',
      customerOrder({ customerId: bobId }),
      alice.as,
    );

    expectProblem(response, 403, 'forbidden');
    expect(await stockOf(api, sku)).toEqual(before);
  });

  it('reads its own orders; another customer’s are 404, as are staff orders for others', async () => {
    const own = (await api.post('/api/v1/orders', customerOrder(), alice.as)).body;
    const bobs = (await api.post('/api/v1/orders', customerOrder(), bob.as)).body;

    expect((await api.get(orderPath(own.id), alice.as)).body).toEqual(own);
    expectProblem(await api.get(orderPath(bobs.id), alice.as), 404, 'not_found');
    expectProblem(await api.get(orderPath(bobs.id, 2), alice.as), 404, 'not_found');
    expectProblem(await api.get(`${orderPath(bobs.id)}/status`, alice.as), 404, 'not_found');
    expect((await api.get(`${orderPath(own.id)}/status`, alice.as)).status).toBe(200);
  });

  it('cannot change an order: the same 403 for its own, another’s and one that is not there', async () => {
    const own = (await api.post('/api/v1/orders', customerOrder(), alice.as)).body;
    const bobs = (await api.post('/api/v1/orders', customerOrder(), bob.as)).body;
    const ids = [own.id, bobs.id, '01890000-0000-7000-8000-000000000000'];

    const answers = [];
    for (const id of ids) {
      const patch = await api.request('PATCH', orderPath(id), {
        body: { notes: 'mine now' },
        ...alice.as,
      });
      const status = await api.request('PATCH', `${orderPath(id)}/status`, {
        body: { status: 'cancelled' },
        ...alice.as,
      });
      answers.push(...[patch, status].map((r) => ({ status: r.status, body: r.body })));
    }

    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect({ ...answer.body, instance: '', requestId: '' }).toEqual({
        ...answers[0].body,
        instance: '',
        requestId: '',
      });
    }
    expect((await api.get(orderPath(own.id), alice.as)).body.notes).toBe(own.notes);
  });

  it('lists only its own orders, whatever customerId filter it sends', async () => {
    const own = (await api.post('/api/v1/orders', customerOrder(), bob.as)).body;

    const all = await api.get('/api/v1/orders?limit=100', bob.as);
    const others = await api.get(`/api/v1/orders?customerId=${aliceId}`, bob.as);

    expect(all.status).toBe(200);
    expect(all.body.data.map((o: { id: string }) => o.id)).toContain(own.id);
    for (const order of all.body.data) expect(order.customerId).toBe(bobId);
    expect(all.body.pagination.total).toBe(all.body.data.length);
    expect(others.body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('gets 403 on PATCH of its own order and on status changes, and nothing changes', async () => {
    const own = (await api.post('/api/v1/orders', customerOrder(), alice.as)).body;

    expectProblem(
      await api.request('PATCH', orderPath(own.id), { body: { notes: 'x' }, ...alice.as }),
      403,
      'forbidden',
    );
    expectProblem(
      await api.request('PATCH', `${orderPath(own.id)}/status`, {
        body: { status: 'cancelled' },
        ...alice.as,
      }),
      403,
      'forbidden',
    );
    expect((await api.get(orderPath(own.id), alice.as)).body).toEqual(own);
  });

  it('staff see every customer’s orders', async () => {
    const own = (await api.post('/api/v1/orders', customerOrder(), alice.as)).body;
    const analyst = await createApiKey(api, 'analyst');

    expect((await api.get(orderPath(own.id), analyst.as)).status).toBe(200);
    expect(
      (await api.get(orderPath(own.id), { headers: { 'X-API-Key': ADMIN_KEY } })).body,
    ).toEqual(own);
  });

  it('a customer key that names no customer sees no orders and cannot place one', async () => {
    const nobody = await createApiKey(api, 'customer', null);

    const list = await api.get('/api/v1/orders', nobody.as);
    const create = await api.post('/api/v1/orders', customerOrder(), nobody.as);

    expect(list.body.pagination.total).toBe(0);
    expectProblem(create, 403, 'forbidden');
  });
});
