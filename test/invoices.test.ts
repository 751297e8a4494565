import { randomUUID } from 'node:crypto';
import {
  confirmedOrder,
  createInvoice,
  dayAfter,
  eventsFor,
  orderThrough,
  setInvoiceStatus,
} from './support/fulfilment-factories';
import {
  createApiKey,
  createOrder,
  customerIdFor,
  ORDER_TEST_ENV,
  stockedProduct,
} from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { startTestApp, TestApp } from './support/test-app';

/** API.md §3 invoices: creation from an order, numbering, reads, PATCH, ownership (§2). */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NUMBER = /^INV-(\d{4})-(\d{6})$/;

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
});

afterAll(async () => {
  await api?.close();
});

const invoicePath = (id: string, version = 1) => `/api/v${version}/invoices/${id}`;
const sequenceOf = (number: string) => Number(NUMBER.exec(number)?.[2]);

describe('POST /api/v1/invoices', () => {
  it('creates a draft from the order: 201, Location, lines and total copied, next number', async () => {
    const shirt = await stockedProduct(api, 10, { name: 'Red shirt', price: '19.99' });
    const mug = await stockedProduct(api, 10, { name: 'Mug', price: '7.50' });
    const order = await createOrder(api, [
      { sku: shirt.sku, quantity: 2 },
      { sku: mug.sku, quantity: 3 },
    ]);
    await api.request('PATCH', `/api/v1/orders/${order.id}/status`, {
      body: { status: 'confirmed' },
    });

    const response = await api.post('/api/v1/invoices', { orderId: order.id });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      number: expect.stringMatching(NUMBER),
      orderId: order.id,
      customerId: order.customerId,
      status: 'draft',
      currency: 'EUR',
      lines: order.lines,
      total: '62.48',
      amountDue: '62.48',
      dueDate: dayAfter(response.body.createdAt, 30),
      issuedAt: null,
      paidAt: null,
      notes: null,
      version: 1,
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
    expect(response.body.number.slice(4, 8)).toBe(response.body.createdAt.slice(0, 4));
    expect(response.headers.get('etag')).toBe('"1"');
    expect(response.headers.get('location')).toBe(`/api/v1/invoices/${response.body.id}`);
    const fetched = await api.get(invoicePath(response.body.id));
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(response.body);
  });

  it('takes a due date and notes', async () => {
    const { order } = await confirmedOrder(api);
    const dueDate = dayAfter(new Date(), 45);

    const invoice = await createInvoice(api, order.id, { dueDate, notes: 'PO 4711' });

    expect(invoice).toMatchObject({ dueDate, notes: 'PO 4711' });
  });

  it('accepts a due date of today', async () => {
    const { order } = await confirmedOrder(api);
    const today = new Date().toISOString().slice(0, 10);

    const response = await api.post('/api/v1/invoices', { orderId: order.id, dueDate: today });

    expect(response.status).toBe(201);
    expect(response.body.dueDate).toBe(today);
  });

  it('formats money with the currency’s minor digits (JPY has none)', async () => {
    const { order } = await confirmedOrder(api, { quantity: 3, price: '1500', currency: 'JPY' });

    const invoice = await createInvoice(api, order.id);

    expect(invoice).toMatchObject({
      currency: 'JPY',
      total: '4500',
      amountDue: '4500',
      lines: [{ unitPrice: '1500', lineTotal: '4500' }],
    });
  });

  it.each([['shipped'], ['delivered']])('invoices a %s order', async (status) => {
    const steps =
      status === 'shipped' ? ['confirmed', 'shipped'] : ['confirmed', 'shipped', 'delivered'];
    const { order } = await orderThrough(api, steps);

    const response = await api.post('/api/v1/invoices', { orderId: order.id });

    expect(response.status).toBe(201);
  });

  it.each([
    ['pending', []],
    ['cancelled', ['cancelled']],
  ])(
    'answers 409 conflict naming the status of a %s order, and numbers nothing',
    async (status, steps) => {
      const { order } = await orderThrough(api, steps);
      const before = await createInvoice(api, (await confirmedOrder(api)).order.id);

      const response = await api.post('/api/v1/invoices', { orderId: order.id });

      const problem = expectProblem(response, 409, 'conflict');
      expect(problem.detail).toContain(status);
      expect(fieldsOf(problem)).toEqual(['orderId']);
      const after = await createInvoice(api, (await confirmedOrder(api)).order.id);
      expect(sequenceOf(after.number)).toBe(sequenceOf(before.number) + 1);
      expect((await api.get(`/api/v1/invoices?orderId=${order.id}`)).body.pagination.total).toBe(0);
    },
  );

  it('answers 409 for an order already invoiced, until that invoice is void', async () => {
    const { order } = await confirmedOrder(api);
    const first = await createInvoice(api, order.id);

    const again = await api.post('/api/v1/invoices', { orderId: order.id });
    await setInvoiceStatus(api, first.id, 'void');
    const afterVoid = await api.post('/api/v1/invoices', { orderId: order.id });

    const problem = expectProblem(again, 409, 'conflict');
    expect(problem.detail).toContain(first.number);
    expect(afterVoid.status).toBe(201);
    expect(sequenceOf(afterVoid.body.number)).toBe(sequenceOf(first.number) + 1);
  });

  it('numbers invoices one after another, in the year of creation', async () => {
    const numbers: string[] = [];
    for (let i = 0; i < 3; i++) {
      numbers.push((await createInvoice(api, (await confirmedOrder(api)).order.id)).number);
    }

    const [first, ...rest] = numbers.map(sequenceOf);
    expect(rest).toEqual([first + 1, first + 2]);
    for (const n of numbers) expect(n.slice(4, 8)).toBe(String(new Date().getUTCFullYear()));
  });

  it('records invoice.created with the invoice as /api/v1 shows it', async () => {
    const { order } = await confirmedOrder(api);

    const invoice = await createInvoice(api, order.id);

    expect(await eventsFor(api, invoice.id)).toEqual([
      { type: 'invoice.created', payload: invoice },
    ]);
  });

  describe('answers 422 validation_failed naming the field', () => {
    let orderId: string;
    beforeAll(async () => {
      orderId = (await confirmedOrder(api)).order.id;
    });

    it.each([
      ['an unknown order', () => ({ orderId: randomUUID() }), 'orderId'],
      ['an orderId that is not a UUID', () => ({ orderId: 'order-1' }), 'orderId'],
      ['no orderId', () => ({}), 'orderId'],
      ['a due date that is not a date', () => ({ orderId, dueDate: 'soon' }), 'dueDate'],
      ['a due date with a time', () => ({ orderId, dueDate: '2099-01-01T00:00:00Z' }), 'dueDate'],
      ['a due date that does not exist', () => ({ orderId, dueDate: '2099-02-30' }), 'dueDate'],
      ['a null due date', () => ({ orderId, dueDate: null }), 'dueDate'],
      ['a due date in the past', () => ({ orderId, dueDate: dayAfter(new Date(), -1) }), 'dueDate'],
      ['notes over 2000 characters', () => ({ orderId, notes: 'x'.repeat(2001) }), 'notes'],
      ['an unknown field', () => ({ orderId, total: '1.00' }), 'total'],
      ['a status', () => ({ orderId, status: 'paid' }), 'status'],
    ])('%s', async (_case, body, field) => {
      const response = await api.post('/api/v1/invoices', body());

      expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toContain(field);
    });

    it('says once what is wrong with a due date that is not a date', async () => {
      const message = 'must be a calendar date YYYY-MM-DD, e.g. 2026-12-31';

      const response = await api.post('/api/v1/invoices', { orderId, dueDate: 'soon' });

      const problem = expectProblem(response, 422, 'validation_failed');
      expect(problem.errors).toEqual([{ field: 'dueDate', message }]);
      expect(problem.detail).toBe(`dueDate ${message}`);
    });

    it('creates nothing for the order', async () => {
      expect((await api.get(`/api/v1/invoices?orderId=${orderId}`)).body.pagination.total).toBe(0);
    });
  });

  it('answers 401 without credentials and 403 for roles without invoices:write', async () => {
    const { order } = await confirmedOrder(api);
    const body = { orderId: order.id };

    expectProblem(
      await api.post('/api/v1/invoices', body, { auth: false }),
      401,
      'unauthenticated',
    );
    for (const role of ['analyst', 'fulfillment']) {
      const key = await createApiKey(api, role);
      expectProblem(await api.post('/api/v1/invoices', body, key.as), 403, 'forbidden');
    }
    const customer = await createApiKey(api, 'customer', order.customerId);
    expectProblem(await api.post('/api/v1/invoices', body, customer.as), 403, 'forbidden');
    expect((await api.get(`/api/v1/invoices?orderId=${order.id}`)).body.pagination.total).toBe(0);
  });

  it.each(['finance', 'operations'])('lets %s invoice', async (role) => {
    const { order } = await confirmedOrder(api);
    const key = await createApiKey(api, role);

    expect((await api.post('/api/v1/invoices', { orderId: order.id }, key.as)).status).toBe(201);
  });

  it('replays a retry with the same Idempotency-Key instead of numbering twice', async () => {
    const { order } = await confirmedOrder(api);
    const headers = { 'Idempotency-Key': randomUUID() };

    const first = await api.post('/api/v1/invoices', { orderId: order.id }, { headers });
    const retry = await api.post('/api/v1/invoices', { orderId: order.id }, { headers });

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });
});

describe('/api/v2/invoices', () => {
  it('shows money as objects; the rest, currency included, as v1', async () => {
    const { order } = await confirmedOrder(api, { price: '5.25', quantity: 2 });

    const response = await api.post('/api/v2/invoices', { orderId: order.id });

    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/v2/invoices/${response.body.id}`);
    expect(response.body.currency).toBe('EUR');
    expect(response.body.total).toEqual({ amount: '10.50', currency: 'EUR' });
    expect(response.body.amountDue).toEqual({ amount: '10.50', currency: 'EUR' });
    expect(response.body.lines[0]).toMatchObject({
      unitPrice: { amount: '5.25', currency: 'EUR' },
      lineTotal: { amount: '10.50', currency: 'EUR' },
    });
    const v1 = (await api.get(invoicePath(response.body.id, 1))).body;
    const { total: _t, amountDue: _a, lines: _l, ...shared } = v1;
    const { total: _t2, amountDue: _a2, lines: _l2, ...sharedV2 } = response.body;
    expect(sharedV2).toEqual(shared);
    expect((await api.get(invoicePath(response.body.id, 2))).body).toEqual(response.body);
  });

  it('lists with cursors only: page is 400', async () => {
    expectProblem(await api.get('/api/v2/invoices?page=1'), 400, 'bad_request');
  });
});

describe('GET /api/v1/invoices', () => {
  const ids: string[] = [];
  const orderIds: string[] = [];
  let customerId: string;

  beforeAll(async () => {
    customerId = customerIdFor('inv');
    for (const [quantity, days] of [
      [3, 40],
      [1, 10],
      [2, 20],
    ]) {
      const { order } = await confirmedOrder(api, {
        quantity,
        price: '1.00',
        overrides: { customerId },
      });
      orderIds.push(order.id);
      ids.push((await createInvoice(api, order.id, { dueDate: dayAfter(new Date(), days) })).id);
    }
    await setInvoiceStatus(api, ids[1], 'open');
  });

  /** The list, narrowed to this block's invoices by the customer's own key. */
  const listed = async (query: string) => {
    const key = await customerKey();
    const response = await api.get(`/api/v1/invoices?${query}`, key.as);
    expect(response.status).toBe(200);
    return response;
  };
  let key: Awaited<ReturnType<typeof createApiKey>> | undefined;
  const customerKey = async () => (key ??= await createApiKey(api, 'customer', customerId));
  const idsOf = (response: { body: { data: { id: string }[] } }) =>
    response.body.data.map((i) => i.id);

  it('lists newest first by default, in the collection envelope', async () => {
    const response = await listed('');

    expect(idsOf(response)).toEqual([...ids].reverse());
    expect(response.body.pagination).toMatchObject({ total: 3, limit: 20, next: null, prev: null });
    expect(response.body.data[0].lines).toHaveLength(1);
  });

  it('filters by status and by orderId', async () => {
    expect(idsOf(await listed('status=open'))).toEqual([ids[1]]);
    expect(idsOf(await listed('status=draft'))).toEqual([ids[2], ids[0]]);
    expect(idsOf(await listed(`orderId=${orderIds[2]}`))).toEqual([ids[2]]);
    const staff = await api.get(`/api/v1/invoices?orderId=${orderIds[0]}&status=draft`);
    expect(idsOf(staff)).toEqual([ids[0]]);
  });

  it.each([
    ['number', [0, 1, 2]],
    ['-number', [2, 1, 0]],
    ['total', [1, 2, 0]],
    ['-total', [0, 2, 1]],
    ['dueDate', [1, 2, 0]],
    ['-dueDate', [0, 2, 1]],
    ['createdAt', [0, 1, 2]],
    ['-updatedAt', [1, 2, 0]],
  ])('sorts by %s', async (sort, order) => {
    expect(idsOf(await listed(`sort=${sort}`))).toEqual(order.map((i) => ids[i]));
  });

  it('walks every invoice with cursors (also sorted by dueDate), and with v1 pages', async () => {
    for (const sort of ['-createdAt', 'dueDate', '-total']) {
      const all = idsOf(await listed(`sort=${sort}`));
      const first = await listed(`sort=${sort}&limit=2`);
      const key = await customerKey();
      const next = await api.get(first.body.pagination.next.replace(api.baseUrl, ''), key.as);
      expect(next.status).toBe(200);
      expect([...idsOf(first), ...idsOf(next)]).toEqual(all);
      const prev = await api.get(next.body.pagination.prev.replace(api.baseUrl, ''), key.as);
      expect(idsOf(prev)).toEqual(idsOf(first));
    }
    const page2 = await listed('limit=2&page=2');
    expect(idsOf(page2)).toEqual([ids[0]]);
    expect(page2.body.pagination.page).toBe(2);
  });

  it.each([
    ['an unknown status', 'status=unpaid', 'status'],
    ['an orderId that is not a UUID', 'orderId=123', 'orderId'],
    ['an unknown sort field', 'sort=customerId', 'sort'],
    ['an unknown parameter', 'customerId=x', 'customerId'],
  ])('answers 400 for %s', async (_case, query, field) => {
    const problem = expectProblem(await api.get(`/api/v1/invoices?${query}`), 400, 'bad_request');

    expect(fieldsOf(problem)).toContain(field);
  });

  it('answers 403 for a role without invoices:read', async () => {
    const fulfillment = await createApiKey(api, 'fulfillment');

    expectProblem(await api.get('/api/v1/invoices', fulfillment.as), 403, 'forbidden');
    expectProblem(await api.get(invoicePath(ids[0]), fulfillment.as), 403, 'forbidden');
  });
});

describe('PATCH /api/v1/invoices/{id}', () => {
  it('changes the due date and notes of a draft, bumping the version and telling', async () => {
    const invoice = await createInvoice(api, (await confirmedOrder(api)).order.id);
    const dueDate = dayAfter(new Date(), 60);

    const response = await api.request('PATCH', invoicePath(invoice.id), {
      body: { dueDate, notes: 'Net 60 agreed.' },
      headers: { 'If-Match': '"1"' },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"2"');
    expect(response.body).toEqual({
      ...invoice,
      dueDate,
      notes: 'Net 60 agreed.',
      version: 2,
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
    expect((await api.get(invoicePath(invoice.id))).body).toEqual(response.body);
    const events = await eventsFor(api, invoice.id);
    expect(events.map((e) => e.type)).toEqual(['invoice.created', 'invoice.updated']);
    expect(events[1].payload).toEqual(response.body);
  });

  it('changes an open invoice too; null clears the notes; only what is sent changes', async () => {
    const invoice = await createInvoice(api, (await confirmedOrder(api)).order.id, {
      notes: 'first',
    });
    await setInvoiceStatus(api, invoice.id, 'open');

    const response = await api.request('PATCH', invoicePath(invoice.id), { body: { notes: null } });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ notes: null, dueDate: invoice.dueDate, status: 'open' });
  });

  it('keeps the version and records nothing when nothing changes', async () => {
    const invoice = await createInvoice(api, (await confirmedOrder(api)).order.id);

    const response = await api.request('PATCH', invoicePath(invoice.id), {
      body: { dueDate: invoice.dueDate, notes: null },
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual(invoice);
    expect((await eventsFor(api, invoice.id)).map((e) => e.type)).toEqual(['invoice.created']);
  });

  it('answers 412 for a stale If-Match and changes nothing', async () => {
    const invoice = await createInvoice(api, (await confirmedOrder(api)).order.id);

    const response = await api.request('PATCH', invoicePath(invoice.id), {
      body: { notes: 'late' },
      headers: { 'If-Match': '"9"' },
    });

    expectProblem(response, 412, 'precondition_failed');
    expect((await api.get(invoicePath(invoice.id))).body).toEqual(invoice);
  });

  it.each(['paid', 'void'])('answers 409 conflict once the invoice is %s', async (status) => {
    const invoice = await createInvoice(api, (await confirmedOrder(api)).order.id);
    if (status === 'paid') await setInvoiceStatus(api, invoice.id, 'open');
    await setInvoiceStatus(api, invoice.id, status);
    const before = (await api.get(invoicePath(invoice.id))).body;

    const response = await api.request('PATCH', invoicePath(invoice.id), {
      body: { notes: 'too late' },
    });

    const problem = expectProblem(response, 409, 'conflict');
    expect(problem.detail).toContain(status);
    expect((await api.get(invoicePath(invoice.id))).body).toEqual(before);
  });

  it.each([
    ['the status', { status: 'paid' }, 'status'],
    ['the number', { number: 'INV-2000-000001' }, 'number'],
    ['the order', { orderId: randomUUID() }, 'orderId'],
    ['a null due date', { dueDate: null }, 'dueDate'],
    ['a due date before the invoice was created', { dueDate: '2000-01-01' }, 'dueDate'],
  ])('answers 422 for %s', async (_case, body, field) => {
    const invoice = await createInvoice(api, (await confirmedOrder(api)).order.id);

    const response = await api.request('PATCH', invoicePath(invoice.id), { body });

    expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toContain(field);
    expect((await api.get(invoicePath(invoice.id))).body).toEqual(invoice);
  });

  it('answers 404 for an unknown invoice and for an id that cannot exist', async () => {
    expectProblem(
      await api.request('PATCH', invoicePath(randomUUID()), { body: { notes: 'x' } }),
      404,
      'not_found',
    );
    expectProblem(await api.get('/api/v1/invoices/INV-2026-000001'), 404, 'not_found');
  });

  it('answers 403 to finance’s readers: analyst and customer', async () => {
    const { order } = await confirmedOrder(api);
    const invoice = await createInvoice(api, order.id);
    const analyst = await createApiKey(api, 'analyst');
    const customer = await createApiKey(api, 'customer', order.customerId);

    for (const key of [analyst, customer]) {
      expectProblem(
        await api.request('PATCH', invoicePath(invoice.id), { body: { notes: 'x' }, ...key.as }),
        403,
        'forbidden',
      );
    }
  });
});

describe('a customer principal', () => {
  let alice: Awaited<ReturnType<typeof createApiKey>>;
  let aliceId: string;
  let own: { id: string; [key: string]: any };
  let others: { id: string; [key: string]: any };

  beforeAll(async () => {
    aliceId = customerIdFor('alice');
    alice = await createApiKey(api, 'customer', aliceId);
    own = await createInvoice(
      api,
      (await confirmedOrder(api, { overrides: { customerId: aliceId } })).order.id,
    );
    others = await createInvoice(api, (await confirmedOrder(api)).order.id);
  });

  it('reads its own invoices in v1 and v2, and their status', async () => {
    expect((await api.get(invoicePath(own.id), alice.as)).body).toEqual(own);
    expect((await api.get(invoicePath(own.id, 2), alice.as)).status).toBe(200);
    expect((await api.get(`${invoicePath(own.id)}/status`, alice.as)).status).toBe(200);
  });

  it('gets 404, never 403, for another customer’s invoice', async () => {
    expectProblem(await api.get(invoicePath(others.id), alice.as), 404, 'not_found');
    expectProblem(await api.get(invoicePath(others.id, 2), alice.as), 404, 'not_found');
    expectProblem(await api.get(`${invoicePath(others.id)}/status`, alice.as), 404, 'not_found');
  });

  it('lists only its own invoices, whatever it filters by', async () => {
    const all = await api.get('/api/v1/invoices?limit=100', alice.as);
    const byOrder = await api.get(`/api/v1/invoices?orderId=${others.orderId}`, alice.as);

    expect(all.body.data.map((i: { id: string }) => i.id)).toEqual([own.id]);
    expect(all.body.pagination.total).toBe(1);
    expect(byOrder.body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('a customer key that names no customer sees no invoices', async () => {
    const nobody = await createApiKey(api, 'customer', null);

    expect((await api.get('/api/v1/invoices', nobody.as)).body.pagination.total).toBe(0);
    expectProblem(await api.get(invoicePath(own.id), nobody.as), 404, 'not_found');
  });

  it('staff see every customer’s invoices', async () => {
    const analyst = await createApiKey(api, 'analyst');

    expect((await api.get(invoicePath(own.id), analyst.as)).body).toEqual(own);
  });
});
