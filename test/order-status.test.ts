import { randomUUID } from 'node:crypto';
import {
  adminSubject,
  createApiKey,
  createOrder,
  ORDER_TEST_ENV,
  setOrderStatus,
  stockedProduct,
  stockOf,
} from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/** API.md §3 order status: the machine, its stock effects and its history, over HTTP. */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const STATUSES = ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];

/** The allowed transitions of the contract, and the path from creation to each status. */
const ALLOWED = new Set([
  'pending→confirmed',
  'pending→cancelled',
  'confirmed→shipped',
  'confirmed→cancelled',
  'shipped→delivered',
]);
const PATH_TO: Record<Status, Status[]> = {
  pending: [],
  confirmed: ['confirmed'],
  shipped: ['confirmed', 'shipped'],
  delivered: ['confirmed', 'shipped', 'delivered'],
  cancelled: ['cancelled'],
};

const PAIRS: [Status, Status][] = STATUSES.flatMap((from) =>
  STATUSES.map((to) => [from, to] as [Status, Status]),
);

let api: TestApp;
let admin: string;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
  admin = await adminSubject(api, ADMIN_KEY);
});

afterAll(async () => {
  await api?.close();
});

const statusPath = (id: string, version = 1) => `/api/v${version}/orders/${id}/status`;

/** A fresh order for 3 units of a product holding 10, moved along the path to `status`. */
async function orderIn(status: Status) {
  const product = await stockedProduct(api, 10);
  const order = await createOrder(api, [{ sku: product.sku, quantity: 3 }]);
  for (const step of PATH_TO[status]) {
    const response = await setOrderStatus(api, order.id, step);
    if (response.status !== 200) throw new Error(`${step}: ${response.status} ${response.text}`);
  }
  return { order, sku: product.sku };
}

describe('GET /api/v1/orders/{id}/status', () => {
  it('starts with one history entry: from null to pending, by the creator', async () => {
    const { order } = await orderIn('pending');

    const response = await api.get(statusPath(order.id));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'pending',
      history: [{ from: null, to: 'pending', at: order.createdAt, actor: admin }],
    });
    expect(response.headers.get('etag')).toBe('"1"');
  });

  it('is tagged with the order version: If-None-Match answers 304', async () => {
    const { order } = await orderIn('confirmed');

    const response = await api.get(statusPath(order.id), { headers: { 'If-None-Match': '"2"' } });

    expect(response.status).toBe(304);
  });

  it('is the same in /api/v2', async () => {
    const { order } = await orderIn('shipped');

    const [v1, v2] = await Promise.all([
      api.get(statusPath(order.id)),
      api.get(statusPath(order.id, 2)),
    ]);

    expect(v2.status).toBe(200);
    expect(v2.body).toEqual(v1.body);
  });

  it('answers 404 for an unknown order', async () => {
    expectProblem(await api.get(statusPath(randomUUID())), 404, 'not_found');
  });
});

describe('PATCH /api/v1/orders/{id}/status', () => {
  it.each(PAIRS.filter(([from, to]) => ALLOWED.has(`${from}→${to}`)))(
    '%s → %s is allowed: 200, a history entry, the version bumped',
    async (from, to) => {
      const { order } = await orderIn(from);
      const before = (await api.get(`/api/v1/orders/${order.id}`)).body;

      const response = await setOrderStatus(api, order.id, to);

      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe(`"${before.version + 1}"`);
      expect(response.body.status).toBe(to);
      expect(response.body.history.at(-1)).toEqual({
        from,
        to,
        at: expect.stringMatching(RFC3339_UTC),
        actor: admin,
      });
      expect(response.body.history).toHaveLength(PATH_TO[from].length + 2);
      const after = (await api.get(`/api/v1/orders/${order.id}`)).body;
      expect(after).toMatchObject({ status: to, version: before.version + 1 });
      expect((await api.get(statusPath(order.id))).body).toEqual(response.body);
    },
  );

  it.each(PAIRS.filter(([from, to]) => !ALLOWED.has(`${from}→${to}`)))(
    '%s → %s is 409 invalid_status_transition and changes nothing',
    async (from, to) => {
      const { order, sku } = await orderIn(from);
      const before = (await api.get(`/api/v1/orders/${order.id}`)).body;
      const history = (await api.get(statusPath(order.id))).body;
      const stock = await stockOf(api, sku);

      const response = await setOrderStatus(api, order.id, to);

      const problem = expectProblem(response, 409, 'invalid_status_transition');
      expect(problem.detail).toContain(`${from} to ${to}`);
      expect((await api.get(`/api/v1/orders/${order.id}`)).body).toEqual(before);
      expect((await api.get(statusPath(order.id))).body).toEqual(history);
      expect(await stockOf(api, sku)).toEqual(stock);
    },
  );

  it('tries all 25 pairs: 5 allowed, 20 refused', () => {
    expect(PAIRS).toHaveLength(25);
    expect(PAIRS.filter(([from, to]) => ALLOWED.has(`${from}→${to}`))).toHaveLength(5);
  });

  it('keeps the whole history in order: pending, confirmed, shipped, delivered', async () => {
    const { order } = await orderIn('delivered');

    const response = await api.get(statusPath(order.id));

    expect(response.body.status).toBe('delivered');
    expect(
      response.body.history.map((h: { from: string | null; to: string }) => [h.from, h.to]),
    ).toEqual([
      [null, 'pending'],
      ['pending', 'confirmed'],
      ['confirmed', 'shipped'],
      ['shipped', 'delivered'],
    ]);
    const times = response.body.history.map((h: { at: string }) => Date.parse(h.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('records who made each change', async () => {
    const operations = await createApiKey(api, 'operations');
    const { order } = await orderIn('pending');

    const response = await api.request('PATCH', statusPath(order.id), {
      body: { status: 'confirmed' },
      ...operations.as,
    });

    expect(response.body.history.map((h: { actor: string }) => h.actor)).toEqual([
      admin,
      operations.subject,
    ]);
  });

  it('honours If-Match: a stale tag is 412 and changes nothing; the current one applies', async () => {
    const { order } = await orderIn('pending');

    const stale = await api.request('PATCH', statusPath(order.id), {
      body: { status: 'confirmed' },
      headers: { 'If-Match': '"5"' },
    });
    const current = await api.request('PATCH', statusPath(order.id), {
      body: { status: 'confirmed' },
      headers: { 'If-Match': '"1"' },
    });

    expectProblem(stale, 412, 'precondition_failed');
    expect(current.status).toBe(200);
  });

  it.each([
    ['an unknown status', { status: 'lost' }],
    ['no status', {}],
    ['an extra field', { status: 'confirmed', reason: 'because' }],
  ])('answers 422 for %s', async (_case, body) => {
    const { order } = await orderIn('pending');

    const response = await api.request('PATCH', statusPath(order.id), { body });

    expectProblem(response, 422, 'validation_failed');
    expect((await api.get(statusPath(order.id))).body.status).toBe('pending');
  });

  it('answers 403 for roles without orders:write and 404 for an unknown order', async () => {
    const { order } = await orderIn('pending');
    const finance = await createApiKey(api, 'finance');

    const forbidden = await api.request('PATCH', statusPath(order.id), {
      body: { status: 'confirmed' },
      ...finance.as,
    });
    const missing = await setOrderStatus(api, randomUUID(), 'confirmed');

    expectProblem(forbidden, 403, 'forbidden');
    expectProblem(missing, 404, 'not_found');
  });

  it('names the field and where the order may go next', async () => {
    const { order } = await orderIn('shipped');

    const problem = expectProblem(
      await setOrderStatus(api, order.id, 'cancelled'),
      409,
      'invalid_status_transition',
    );

    expect(fieldsOf(problem)).toEqual(['status']);
    expect(problem.detail).toContain('delivered');
  });
});

describe('stock effects of status changes', () => {
  it('creation reserves; confirming changes no stock', async () => {
    const { sku } = await orderIn('confirmed');

    expect(await stockOf(api, sku)).toEqual({
      quantityOnHand: 10,
      quantityReserved: 3,
      quantityAvailable: 7,
    });
  });

  it.each(['pending', 'confirmed'] as const)(
    'cancelling a %s order releases its reservation',
    async (from) => {
      const { order, sku } = await orderIn(from);

      await setOrderStatus(api, order.id, 'cancelled');

      expect(await stockOf(api, sku)).toEqual({
        quantityOnHand: 10,
        quantityReserved: 0,
        quantityAvailable: 10,
      });
    },
  );

  it('shipping takes the reserved units out of on hand, in the stock ledger too', async () => {
    const { order, sku } = await orderIn('confirmed');

    await setOrderStatus(api, order.id, 'shipped');

    expect(await stockOf(api, sku)).toEqual({
      quantityOnHand: 7,
      quantityReserved: 0,
      quantityAvailable: 7,
    });
    const ledger = await api.get(`/api/v1/inventory/${sku}/adjustments`);
    expect(ledger.body.data[0]).toMatchObject({
      delta: -3,
      reason: `order ${order.id} shipped`,
      quantityOnHand: 7,
      quantityReserved: 0,
    });
  });

  it('delivering changes no stock', async () => {
    const { order, sku } = await orderIn('shipped');

    await setOrderStatus(api, order.id, 'delivered');

    expect(await stockOf(api, sku)).toEqual({
      quantityOnHand: 7,
      quantityReserved: 0,
      quantityAvailable: 7,
    });
  });

  it('moves the stock of every line of a multi-line order', async () => {
    const a = await stockedProduct(api, 5);
    const b = await stockedProduct(api, 8);
    const order = await createOrder(api, [
      { sku: b.sku, quantity: 2 },
      { sku: a.sku, quantity: 4 },
    ]);
    const cancelled = await createOrder(api, [
      { sku: a.sku, quantity: 1 },
      { sku: b.sku, quantity: 1 },
    ]);

    await setOrderStatus(api, order.id, 'confirmed');
    await setOrderStatus(api, order.id, 'shipped');
    await setOrderStatus(api, cancelled.id, 'cancelled');

    expect(await stockOf(api, a.sku)).toEqual({
      quantityOnHand: 1,
      quantityReserved: 0,
      quantityAvailable: 1,
    });
    expect(await stockOf(api, b.sku)).toEqual({
      quantityOnHand: 6,
      quantityReserved: 0,
      quantityAvailable: 6,
    });
  });

  it('lets a product archived after ordering still be cancelled and shipped', async () => {
    const product = await stockedProduct(api, 10);
    const toCancel = await createOrder(api, [{ sku: product.sku, quantity: 2 }]);
    const toShip = await createOrder(api, [{ sku: product.sku, quantity: 3 }]);
    await setOrderStatus(api, toShip.id, 'confirmed');
    await api.request('DELETE', `/api/v1/products/${product.id}`);

    const cancel = await setOrderStatus(api, toCancel.id, 'cancelled');
    const ship = await setOrderStatus(api, toShip.id, 'shipped');

    expect(cancel.status).toBe(200);
    expect(ship.status).toBe(200);
  });
});
