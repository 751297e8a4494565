import {
  createApiKey,
  createOrder,
  ORDER_TEST_ENV,
  setOrderStatus,
  stockedProduct,
} from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §3 `/events`: every event ever emitted, `{id, type, createdAt, data: {object}}`,
 * for clients that reconcile after missed webhooks; the same under /api/v1 and /api/v2.
 */

let api: TestApp;
let orderId: string;
let since: string;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
  since = new Date().toISOString();
  const product = await stockedProduct(api, 5);
  const order = await createOrder(api, [{ sku: product.sku, quantity: 1 }]);
  orderId = order.id;
  await setOrderStatus(api, orderId, 'confirmed');
});
afterAll(() => api?.close());

interface EventBody {
  id: string;
  type: string;
  createdAt: string;
  data: { object: Record<string, unknown> };
}

const ofOrder = (events: EventBody[]) => events.filter((e) => e.data.object.id === orderId);

describe('GET /events', () => {
  it('lists events newest first, each with the order as /api/v1 showed it then', async () => {
    const response = await api.get('/api/v1/events');

    expect(response.status).toBe(200);
    const events = ofOrder(response.body.data as EventBody[]);
    expect(events.map((e) => [e.type, e.data.object.status, e.data.object.version])).toEqual([
      ['order.status_changed', 'confirmed', 2],
      ['order.created', 'pending', 1],
    ]);
    for (const event of events) {
      expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(event.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const order = await api.get(`/api/v1/orders/${orderId}`);
    expect(events[0].data.object).toEqual(order.body);
    expect(response.headers.get('etag')).toEqual(expect.any(String));
  });

  it('filters by type and createdFrom, and sorts ascending on request', async () => {
    const created = await api.get('/api/v1/events?type=order.created');
    expect((created.body.data as EventBody[]).every((e) => e.type === 'order.created')).toBe(true);
    expect(ofOrder(created.body.data)).toHaveLength(1);

    const later = await api.get(
      `/api/v2/events?createdFrom=${encodeURIComponent(since)}&sort=createdAt`,
    );
    expect(later.status).toBe(200);
    expect((later.body.data as EventBody[]).every((e) => e.createdAt >= since)).toBe(true);
    expect(ofOrder(later.body.data).map((e) => e.type)).toEqual([
      'order.created',
      'order.status_changed',
    ]);

    const future = await api.get(`/api/v1/events?createdFrom=2999-01-01T00:00:00Z`);
    expect(future.body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('takes createdFrom as RFC 3339 allows it (lower-case t and z, years before 100)', async () => {
    const all = await api.get('/api/v1/events?limit=100');

    for (const since of ['2000-01-01t00:00:00z', '0050-06-01T00:00:00Z']) {
      const response = await api.get(`/api/v1/events?limit=100&createdFrom=${since}`);
      expect(response.status).toBe(200);
      expect(response.body.pagination.total).toBe(all.body.pagination.total);
    }
  });

  it('says once what is wrong with a createdFrom that is no date-time', async () => {
    const response = await api.get('/api/v1/events?createdFrom=yesterday');

    expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toEqual(['createdFrom']);
  });

  it('pages with cursors', async () => {
    const first = await api.get('/api/v2/events?limit=1&sort=createdAt');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.pagination.next).toMatch(/cursor=/);
    const next = new URL(first.body.pagination.next as string);
    const second = await api.get(`${next.pathname}${next.search}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
  });

  it('refuses unknown filters and types (400), and page in /api/v2', async () => {
    expectProblem(await api.get('/api/v1/events?type=order.shipped'), 400, 'bad_request');
    expectProblem(await api.get('/api/v1/events?resourceId=x'), 400, 'bad_request');
    expectProblem(await api.get('/api/v1/events?createdFrom=yesterday'), 400, 'bad_request');
    expectProblem(await api.get('/api/v2/events?page=2'), 400, 'bad_request');
    expect((await api.get('/api/v1/events?page=1&limit=1')).body.pagination.page).toBe(1);
  });
});

describe('GET /events/{id}', () => {
  it('returns the event, the same under /api/v1 and /api/v2 (the stored v1 object)', async () => {
    const [latest] = ofOrder((await api.get('/api/v1/events')).body.data);

    const v1 = await api.get(`/api/v1/events/${latest.id}`);
    const v2 = await api.get(`/api/v2/events/${latest.id}`);

    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(latest);
    expect(v2.body).toEqual(v1.body);
    // v1's money representation, also under /api/v2
    expect(v2.body.data.object.total).toEqual(expect.any(String));
  });

  it('is 404 for an unknown or malformed id', async () => {
    expectProblem(
      await api.get('/api/v1/events/0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11'),
      404,
      'not_found',
    );
    expectProblem(await api.get('/api/v1/events/nope'), 404, 'not_found');
  });
});

it('is for admins only (events:read)', async () => {
  for (const role of ['operations', 'analyst', 'finance']) {
    const key = await createApiKey(api, role);
    expectProblem(await api.get('/api/v1/events', key.as), 403, 'forbidden');
  }
});
