import { randomUUID } from 'node:crypto';
import {
  confirmedOrder,
  createShipment,
  eventsFor,
  orderThrough,
} from './support/fulfilment-factories';
import {
  adminSubject,
  createApiKey,
  customerIdFor,
  ORDER_TEST_ENV,
  setOrderStatus,
  stockOf,
  Stock,
} from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/**
 * API.md §3 shipments: creating one ships its confirmed order; the shipment's status
 * machine moves the order and its stock along (delivered delivers it, cancelled returns
 * it to confirmed with its units back on hand and reserved); ownership (§2); events (§10).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATUSES = ['label_created', 'in_transit', 'delivered', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];

const ALLOWED = new Set([
  'label_created→in_transit',
  'label_created→cancelled',
  'in_transit→delivered',
]);
const PATH_TO: Record<Status, Status[]> = {
  label_created: [],
  in_transit: ['in_transit'],
  delivered: ['in_transit', 'delivered'],
  cancelled: ['cancelled'],
};
const PAIRS: [Status, Status][] = STATUSES.flatMap((from) =>
  STATUSES.map((to) => [from, to] as [Status, Status]),
);

/** Orders are for 3 of 10 units; where the order and its stock are at each shipment status. */
const SHIPPED_STOCK: Stock = { quantityOnHand: 7, quantityReserved: 0, quantityAvailable: 7 };
const RETURNED_STOCK: Stock = { quantityOnHand: 10, quantityReserved: 3, quantityAvailable: 7 };
const ORDER_AT: Record<Status, { status: string; stock: Stock }> = {
  label_created: { status: 'shipped', stock: SHIPPED_STOCK },
  in_transit: { status: 'shipped', stock: SHIPPED_STOCK },
  delivered: { status: 'delivered', stock: SHIPPED_STOCK },
  cancelled: { status: 'confirmed', stock: RETURNED_STOCK },
};

let api: TestApp;
let admin: string;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
  admin = await adminSubject(api, ADMIN_KEY);
});

afterAll(async () => {
  await api?.close();
});

const shipmentPath = (id: string, version = 1) => `/api/v${version}/shipments/${id}`;
const orderPath = (id: string) => `/api/v1/orders/${id}`;
const patchShipment = (id: string, body: Record<string, unknown>, headers = {}) =>
  api.request('PATCH', shipmentPath(id), { body, headers });

/** A shipment of a fresh confirmed order, moved along the path to `status`. */
async function shipmentIn(status: Status) {
  const { order, sku } = await confirmedOrder(api);
  const shipment = await createShipment(api, order.id);
  for (const step of PATH_TO[status]) {
    const response = await patchShipment(shipment.id, { status: step });
    if (response.status !== 200) throw new Error(`${step}: ${response.status} ${response.text}`);
  }
  return { shipment: (await api.get(shipmentPath(shipment.id))).body, orderId: order.id, sku };
}

/** Everything a refused request must leave as it was. */
async function snapshot(shipmentId: string, orderId: string, sku: string) {
  return {
    shipment: (await api.get(shipmentPath(shipmentId))).body,
    order: (await api.get(orderPath(orderId))).body,
    history: (await api.get(`${orderPath(orderId)}/status`)).body,
    stock: await stockOf(api, sku),
    shipmentEvents: await eventsFor(api, shipmentId),
    orderEvents: await eventsFor(api, orderId),
  };
}

describe('POST /api/v1/shipments', () => {
  it('creates a label_created shipment and ships the order: stock leaves on hand', async () => {
    const { order, sku } = await confirmedOrder(api);

    const response = await api.post('/api/v1/shipments', {
      orderId: order.id,
      carrier: 'DHL',
      trackingNumber: '00340434161094042557',
    });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      orderId: order.id,
      customerId: order.customerId,
      carrier: 'DHL',
      trackingNumber: '00340434161094042557',
      status: 'label_created',
      version: 1,
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
    expect(response.headers.get('etag')).toBe('"1"');
    expect(response.headers.get('location')).toBe(`/api/v1/shipments/${response.body.id}`);
    expect((await api.get(shipmentPath(response.body.id))).body).toEqual(response.body);
    const shipped = (await api.get(orderPath(order.id))).body;
    expect(shipped).toMatchObject({ status: 'shipped', version: order.version + 1 });
    expect((await api.get(`${orderPath(order.id)}/status`)).body.history.at(-1)).toEqual({
      from: 'confirmed',
      to: 'shipped',
      at: expect.stringMatching(RFC3339_UTC),
      actor: admin,
    });
    expect(await stockOf(api, sku)).toEqual(SHIPPED_STOCK);
    const ledger = await api.get(`/api/v1/inventory/${sku}/adjustments`);
    expect(ledger.body.data[0]).toMatchObject({ delta: -3, reason: `order ${order.id} shipped` });
    expect(await eventsFor(api, response.body.id)).toEqual([
      { type: 'shipment.created', payload: response.body },
    ]);
    const orderEvents = await eventsFor(api, order.id);
    expect(orderEvents.at(-1)).toEqual({ type: 'order.status_changed', payload: shipped });
  });

  it('takes no tracking number yet: null', async () => {
    const { order } = await confirmedOrder(api);

    const shipment = await createShipment(api, order.id, { carrier: 'UPS' });

    expect(shipment).toMatchObject({ carrier: 'UPS', trackingNumber: null });
  });

  it('is the same in /api/v2 (no money)', async () => {
    const { order } = await confirmedOrder(api);

    const response = await api.post('/api/v2/shipments', { orderId: order.id, carrier: 'GLS' });

    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/v2/shipments/${response.body.id}`);
    expect((await api.get(shipmentPath(response.body.id, 2))).body).toEqual(response.body);
    expect((await api.get(shipmentPath(response.body.id, 1))).body).toEqual(response.body);
  });

  it.each([
    ['pending', []],
    ['shipped', ['confirmed', 'shipped']],
    ['delivered', ['confirmed', 'shipped', 'delivered']],
    ['cancelled', ['cancelled']],
  ])('answers 409 conflict for a %s order and changes nothing', async (status, steps) => {
    const { order, sku } = await orderThrough(api, steps);
    const stock = await stockOf(api, sku);

    const response = await api.post('/api/v1/shipments', { orderId: order.id, carrier: 'DHL' });

    const problem = expectProblem(response, 409, 'conflict');
    expect(problem.detail).toContain(status);
    expect(fieldsOf(problem)).toEqual(['orderId']);
    expect((await api.get(orderPath(order.id))).body).toEqual(order);
    expect(await stockOf(api, sku)).toEqual(stock);
    expect((await api.get(`/api/v1/shipments?orderId=${order.id}`)).body.pagination.total).toBe(0);
  });

  it('answers 409 for a second shipment while the first is live', async () => {
    const { order } = await confirmedOrder(api);
    await createShipment(api, order.id);

    const again = await api.post('/api/v1/shipments', { orderId: order.id, carrier: 'DHL' });

    expectProblem(again, 409, 'conflict');
  });

  it('lets an order have at most 10 shipments, cancelled ones included', async () => {
    const { order } = await confirmedOrder(api);
    for (let i = 0; i < 10; i++) {
      const shipment = await createShipment(api, order.id);
      expect((await patchShipment(shipment.id, { status: 'cancelled' })).status).toBe(200);
    }

    const eleventh = await api.post('/api/v1/shipments', { orderId: order.id, carrier: 'DHL' });

    expect(expectProblem(eleventh, 409, 'conflict').detail).toContain('10 shipments');
    const history = (await api.get(`${orderPath(order.id)}/status`)).body.history;
    expect(history).toHaveLength(22);
    expect((await api.get(orderPath(order.id))).body.status).toBe('confirmed');

    // the longest history there can be, as the OpenAPI documents bound it (checked on
    // every answer here): shipped and delivered by status changes after ten shipments
    for (const status of ['shipped', 'delivered']) {
      expect((await setOrderStatus(api, order.id, status)).status).toBe(200);
    }
    for (const version of [1, 2]) {
      const longest = await api.get(`/api/v${version}/orders/${order.id}/status`);
      expect([longest.status, longest.body.history.length]).toEqual([200, 24]);
    }
  });

  describe('answers 422 validation_failed naming the field', () => {
    let orderId: string;
    beforeAll(async () => {
      orderId = (await confirmedOrder(api)).order.id;
    });

    it.each([
      ['an unknown order', () => ({ orderId: randomUUID(), carrier: 'DHL' }), 'orderId'],
      ['an orderId that is not a UUID', () => ({ orderId: 'o-1', carrier: 'DHL' }), 'orderId'],
      ['no carrier', () => ({ orderId }), 'carrier'],
      ['an empty carrier', () => ({ orderId, carrier: '' }), 'carrier'],
      ['a carrier over 100 characters', () => ({ orderId, carrier: 'x'.repeat(101) }), 'carrier'],
      [
        'an empty tracking number',
        () => ({ orderId, carrier: 'DHL', trackingNumber: '' }),
        'trackingNumber',
      ],
      ['a status', () => ({ orderId, carrier: 'DHL', status: 'in_transit' }), 'status'],
    ])('%s', async (_case, body, field) => {
      const response = await api.post('/api/v1/shipments', body());

      expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toContain(field);
    });

    it('leaves the order confirmed', async () => {
      expect((await api.get(orderPath(orderId))).body.status).toBe('confirmed');
    });
  });

  it('answers 401 without credentials and 403 for roles without shipments:write', async () => {
    const { order } = await confirmedOrder(api);
    const body = { orderId: order.id, carrier: 'DHL' };

    expectProblem(
      await api.post('/api/v1/shipments', body, { auth: false }),
      401,
      'unauthenticated',
    );
    for (const role of ['finance', 'analyst']) {
      const key = await createApiKey(api, role);
      expectProblem(await api.post('/api/v1/shipments', body, key.as), 403, 'forbidden');
    }
    const customer = await createApiKey(api, 'customer', order.customerId);
    expectProblem(await api.post('/api/v1/shipments', body, customer.as), 403, 'forbidden');
    expect((await api.get(orderPath(order.id))).body.status).toBe('confirmed');
  });

  it('lets fulfillment ship, although it may only read orders', async () => {
    const { order } = await confirmedOrder(api);
    const fulfillment = await createApiKey(api, 'fulfillment');

    const response = await api.post(
      '/api/v1/shipments',
      { orderId: order.id, carrier: 'DHL' },
      fulfillment.as,
    );

    expect(response.status).toBe(201);
    const history = (await api.get(`${orderPath(order.id)}/status`)).body.history;
    expect(history.at(-1)).toMatchObject({ to: 'shipped', actor: fulfillment.subject });
  });
});

describe('PATCH /api/v1/shipments/{id}: status', () => {
  it('tries all 16 pairs: 3 transitions, 4 no-ops, 9 refused', () => {
    expect(PAIRS).toHaveLength(16);
    expect(PAIRS.filter(([f, t]) => ALLOWED.has(`${f}→${t}`))).toHaveLength(3);
    expect(PAIRS.filter(([f, t]) => f === t)).toHaveLength(4);
  });

  it.each(PAIRS.filter(([from, to]) => ALLOWED.has(`${from}→${to}`)))(
    '%s → %s is allowed and moves the order and its stock along',
    async (from, to) => {
      const { shipment, orderId, sku } = await shipmentIn(from);
      const orderBefore = (await api.get(orderPath(orderId))).body;
      const orderEventsBefore = await eventsFor(api, orderId);

      const response = await patchShipment(shipment.id, { status: to });

      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe(`"${shipment.version + 1}"`);
      expect(response.body).toEqual({
        ...shipment,
        status: to,
        version: shipment.version + 1,
        updatedAt: expect.stringMatching(RFC3339_UTC),
      });
      expect((await api.get(shipmentPath(shipment.id))).body).toEqual(response.body);
      const events = await eventsFor(api, shipment.id);
      expect(events.at(-1)).toEqual({ type: 'shipment.updated', payload: response.body });

      const order = (await api.get(orderPath(orderId))).body;
      expect(order.status).toBe(ORDER_AT[to].status);
      expect(await stockOf(api, sku)).toEqual(ORDER_AT[to].stock);
      const orderEvents = (await eventsFor(api, orderId)).slice(orderEventsBefore.length);
      if (order.status === orderBefore.status) {
        expect(order).toEqual(orderBefore);
        expect(orderEvents).toEqual([]);
      } else {
        expect(order.version).toBe(orderBefore.version + 1);
        expect(orderEvents).toEqual([{ type: 'order.status_changed', payload: order }]);
        const history = (await api.get(`${orderPath(orderId)}/status`)).body.history;
        expect(history.at(-1)).toEqual({
          from: orderBefore.status,
          to: order.status,
          at: expect.stringMatching(RFC3339_UTC),
          actor: admin,
        });
      }
    },
  );

  it.each(PAIRS.filter(([from, to]) => from === to))(
    '%s → %s is no change: 200, same version, no event',
    async (from, to) => {
      const { shipment, orderId, sku } = await shipmentIn(from);
      const before = await snapshot(shipment.id, orderId, sku);

      const response = await patchShipment(shipment.id, { status: to });

      expect(response.status).toBe(200);
      expect(response.body).toEqual(shipment);
      expect(await snapshot(shipment.id, orderId, sku)).toEqual(before);
    },
  );

  it.each(PAIRS.filter(([from, to]) => from !== to && !ALLOWED.has(`${from}→${to}`)))(
    '%s → %s is 409 invalid_status_transition and changes nothing',
    async (from, to) => {
      const { shipment, orderId, sku } = await shipmentIn(from);
      const before = await snapshot(shipment.id, orderId, sku);

      const response = await patchShipment(shipment.id, { status: to, trackingNumber: 'NEW-1' });

      const problem = expectProblem(response, 409, 'invalid_status_transition');
      expect(problem.detail).toContain(`${from} to ${to}`);
      expect(fieldsOf(problem)).toEqual(['status']);
      expect(await snapshot(shipment.id, orderId, sku)).toEqual(before);
    },
  );

  it('delivers: label_created → in_transit → delivered ends with the order delivered', async () => {
    const { shipment, orderId } = await shipmentIn('delivered');

    const history = (await api.get(`${orderPath(orderId)}/status`)).body.history;

    expect(shipment.status).toBe('delivered');
    expect(history.map((h: { from: string | null; to: string }) => [h.from, h.to])).toEqual([
      [null, 'pending'],
      ['pending', 'confirmed'],
      ['confirmed', 'shipped'],
      ['shipped', 'delivered'],
    ]);
  });

  describe('cancelling returns the order to confirmed with its reservation', () => {
    it('puts the units back on hand and reserved, in the ledger too', async () => {
      const { shipment, orderId, sku } = await shipmentIn('cancelled');

      expect(await stockOf(api, sku)).toEqual(RETURNED_STOCK);
      const ledger = await api.get(`/api/v1/inventory/${sku}/adjustments`);
      expect(ledger.body.data[0]).toMatchObject({
        delta: 3,
        reason: `order ${orderId} shipment cancelled`,
        quantityOnHand: 10,
        quantityReserved: 3,
      });
      const history = (await api.get(`${orderPath(orderId)}/status`)).body.history;
      expect(history.slice(-2).map((h: { from: string; to: string }) => [h.from, h.to])).toEqual([
        ['confirmed', 'shipped'],
        ['shipped', 'confirmed'],
      ]);
      expect((await eventsFor(api, shipment.id)).map((e) => e.type)).toEqual([
        'shipment.created',
        'shipment.updated',
      ]);
    });

    it('lets the order be cancelled afterwards, releasing the reservation', async () => {
      const { orderId, sku } = await shipmentIn('cancelled');

      const cancelled = await setOrderStatus(api, orderId, 'cancelled');

      expect(cancelled.status).toBe(200);
      expect(await stockOf(api, sku)).toEqual({
        quantityOnHand: 10,
        quantityReserved: 0,
        quantityAvailable: 10,
      });
    });

    it('lets the order be shipped again with a new shipment', async () => {
      const { orderId, sku } = await shipmentIn('cancelled');

      const again = await createShipment(api, orderId, { carrier: 'UPS' });

      expect(again.status).toBe('label_created');
      expect((await api.get(orderPath(orderId))).body.status).toBe('shipped');
      expect(await stockOf(api, sku)).toEqual(SHIPPED_STOCK);
      const listed = await api.get(`/api/v1/shipments?orderId=${orderId}&sort=createdAt`);
      expect(listed.body.data.map((s: { status: string }) => s.status)).toEqual([
        'cancelled',
        'label_created',
      ]);
    });

    it('is not a transition clients can make on the order itself', async () => {
      const { orderId } = await shipmentIn('label_created');

      const response = await setOrderStatus(api, orderId, 'confirmed');

      expectProblem(response, 409, 'invalid_status_transition');
    });

    it('is 409 conflict once the order was delivered through the orders API; nothing changes', async () => {
      const { shipment, orderId, sku } = await shipmentIn('label_created');
      expect((await setOrderStatus(api, orderId, 'delivered')).status).toBe(200);
      const before = await snapshot(shipment.id, orderId, sku);

      const response = await patchShipment(shipment.id, { status: 'cancelled' });

      expect(expectProblem(response, 409, 'conflict').detail).toContain('delivered');
      expect(await snapshot(shipment.id, orderId, sku)).toEqual(before);
    });
  });

  it('delivering a shipment whose order is already delivered leaves the order alone', async () => {
    const { shipment, orderId } = await shipmentIn('in_transit');
    await setOrderStatus(api, orderId, 'delivered');
    const order = (await api.get(orderPath(orderId))).body;

    const response = await patchShipment(shipment.id, { status: 'delivered' });

    expect(response.status).toBe(200);
    expect((await api.get(orderPath(orderId))).body).toEqual(order);
  });

  it('honours If-Match: a stale tag is 412 and moves neither shipment nor order', async () => {
    const { shipment, orderId, sku } = await shipmentIn('label_created');
    const before = await snapshot(shipment.id, orderId, sku);

    const stale = await patchShipment(shipment.id, { status: 'cancelled' }, { 'If-Match': '"7"' });

    expectProblem(stale, 412, 'precondition_failed');
    expect(await snapshot(shipment.id, orderId, sku)).toEqual(before);
    const current = await patchShipment(
      shipment.id,
      { status: 'cancelled' },
      { 'If-Match': '"1"' },
    );
    expect(current.status).toBe(200);
  });
});

describe('PATCH /api/v1/shipments/{id}: carrier and tracking number', () => {
  it('changes them while label_created, with the status in the same request too', async () => {
    const { shipment } = await shipmentIn('label_created');

    const edited = await patchShipment(shipment.id, { carrier: 'UPS', trackingNumber: '1Z999' });
    const moved = await patchShipment(shipment.id, {
      status: 'in_transit',
      trackingNumber: '1Z998',
    });

    expect(edited.body).toMatchObject({ carrier: 'UPS', trackingNumber: '1Z999', version: 2 });
    expect(moved.body).toMatchObject({
      carrier: 'UPS',
      trackingNumber: '1Z998',
      status: 'in_transit',
      version: 3,
    });
    expect((await eventsFor(api, shipment.id)).map((e) => [e.type, e.payload.version])).toEqual([
      ['shipment.created', 1],
      ['shipment.updated', 2],
      ['shipment.updated', 3],
    ]);
  });

  it('null clears the tracking number while in transit', async () => {
    const { shipment } = await shipmentIn('in_transit');
    await patchShipment(shipment.id, { trackingNumber: 'T-1' });

    const response = await patchShipment(shipment.id, { trackingNumber: null });

    expect(response.status).toBe(200);
    expect(response.body.trackingNumber).toBeNull();
  });

  it.each(['delivered', 'cancelled'] as const)(
    'answers 409 conflict once the shipment is %s; the same values are no change',
    async (status) => {
      const { shipment, orderId, sku } = await shipmentIn(status);
      const before = await snapshot(shipment.id, orderId, sku);

      const change = await patchShipment(shipment.id, { carrier: 'FedEx' });
      const same = await patchShipment(shipment.id, {
        carrier: shipment.carrier,
        trackingNumber: shipment.trackingNumber,
      });

      expect(fieldsOf(expectProblem(change, 409, 'conflict'))).toEqual(['carrier']);
      expect(same.status).toBe(200);
      expect(await snapshot(shipment.id, orderId, sku)).toEqual(before);
    },
  );

  it.each([
    ['an unknown status', { status: 'lost' }, 'status'],
    ['a null status', { status: null }, 'status'],
    ['a null carrier', { carrier: null }, 'carrier'],
    ['an empty carrier', { carrier: '' }, 'carrier'],
    ['the order', { orderId: randomUUID() }, 'orderId'],
  ])('answers 422 for %s', async (_case, body, field) => {
    const { shipment } = await shipmentIn('label_created');

    const response = await patchShipment(shipment.id, body);

    expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toContain(field);
    expect((await api.get(shipmentPath(shipment.id))).body).toEqual(shipment);
  });

  it('answers 404 for an unknown shipment and for an id that cannot exist', async () => {
    expectProblem(await patchShipment(randomUUID(), { status: 'in_transit' }), 404, 'not_found');
    expectProblem(await api.get('/api/v1/shipments/12345'), 404, 'not_found');
  });

  it('answers 403 for roles without shipments:write', async () => {
    const { shipment } = await shipmentIn('label_created');
    const finance = await createApiKey(api, 'finance');
    const customer = await createApiKey(api, 'customer', shipment.customerId);

    for (const key of [finance, customer]) {
      expectProblem(
        await api.request('PATCH', shipmentPath(shipment.id), {
          body: { status: 'cancelled' },
          ...key.as,
        }),
        403,
        'forbidden',
      );
    }
    expect((await api.get(shipmentPath(shipment.id))).body).toEqual(shipment);
  });
});

describe('GET /api/v1/shipments', () => {
  let customerId: string;
  let key: Awaited<ReturnType<typeof createApiKey>>;
  const ids: string[] = [];
  const orderIds: string[] = [];

  beforeAll(async () => {
    customerId = customerIdFor('ship');
    key = await createApiKey(api, 'customer', customerId);
    for (let i = 0; i < 3; i++) {
      const { order } = await confirmedOrder(api, { overrides: { customerId } });
      orderIds.push(order.id);
      ids.push((await createShipment(api, order.id)).id);
    }
    await patchShipment(ids[1], { status: 'in_transit' });
  });

  const listed = async (query: string) => {
    const response = await api.get(`/api/v1/shipments?${query}`, key.as);
    expect(response.status).toBe(200);
    return response.body.data.map((s: { id: string }) => s.id);
  };

  it('lists a customer’s own shipments, newest first, and nothing else', async () => {
    const response = await api.get('/api/v1/shipments?limit=100', key.as);

    expect(response.body.data.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(response.body.pagination).toMatchObject({ total: 3, next: null, prev: null });
    for (const s of response.body.data) expect(s.customerId).toBe(customerId);
  });

  it('filters by status and by orderId', async () => {
    expect(await listed('status=in_transit')).toEqual([ids[1]]);
    expect(await listed('status=label_created')).toEqual([ids[2], ids[0]]);
    expect(await listed(`orderId=${orderIds[0]}`)).toEqual([ids[0]]);
  });

  it('sorts by status, createdAt and updatedAt, and walks with cursors and v1 pages', async () => {
    expect(await listed('sort=createdAt')).toEqual(ids);
    expect((await listed('sort=status'))[0]).toBe(ids[1]);
    expect((await listed('sort=-updatedAt'))[0]).toBe(ids[1]);
    const first = await api.get('/api/v2/shipments?limit=2', key.as);
    const next = await api.get(first.body.pagination.next.replace(api.baseUrl, ''), key.as);
    expect([...first.body.data, ...next.body.data].map((s: { id: string }) => s.id)).toEqual(
      [...ids].reverse(),
    );
    expect(await listed('limit=2&page=2')).toEqual([ids[0]]);
  });

  it.each([
    ['an unknown status', 'status=lost', 'status'],
    ['an orderId that is not a UUID', 'orderId=1', 'orderId'],
    ['an unknown sort field', 'sort=carrier', 'sort'],
    ['an unknown parameter', 'customerId=x', 'customerId'],
  ])('answers 400 for %s', async (_case, query, field) => {
    const problem = expectProblem(await api.get(`/api/v1/shipments?${query}`), 400, 'bad_request');

    expect(fieldsOf(problem)).toContain(field);
  });

  it('is cursor-only in /api/v2: page is 400', async () => {
    expectProblem(await api.get('/api/v2/shipments?page=1'), 400, 'bad_request');
  });
});

describe('a customer principal', () => {
  let alice: Awaited<ReturnType<typeof createApiKey>>;
  let own: { id: string; [key: string]: any };
  let others: { id: string; [key: string]: any };

  beforeAll(async () => {
    const aliceId = customerIdFor('alice');
    alice = await createApiKey(api, 'customer', aliceId);
    own = await createShipment(
      api,
      (await confirmedOrder(api, { overrides: { customerId: aliceId } })).order.id,
    );
    others = await createShipment(api, (await confirmedOrder(api)).order.id);
  });

  it('reads the shipments of its own orders, in v1 and v2', async () => {
    expect((await api.get(shipmentPath(own.id), alice.as)).body).toEqual(own);
    expect((await api.get(shipmentPath(own.id, 2), alice.as)).body).toEqual(own);
  });

  it('gets 404, never 403, for another customer’s shipment, and does not list it', async () => {
    expectProblem(await api.get(shipmentPath(others.id), alice.as), 404, 'not_found');
    expectProblem(await api.get(shipmentPath(others.id, 2), alice.as), 404, 'not_found');
    const byOrder = await api.get(`/api/v1/shipments?orderId=${others.orderId}`, alice.as);
    expect(byOrder.body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('a customer key that names no customer sees no shipments', async () => {
    const nobody = await createApiKey(api, 'customer', null);

    expect((await api.get('/api/v1/shipments', nobody.as)).body.pagination.total).toBe(0);
    expectProblem(await api.get(shipmentPath(own.id), nobody.as), 404, 'not_found');
  });

  it('staff with shipments:read see every shipment', async () => {
    for (const role of ['finance', 'fulfillment', 'analyst']) {
      const key = await createApiKey(api, role);
      expect((await api.get(shipmentPath(own.id), key.as)).body).toEqual(own);
    }
  });
});
