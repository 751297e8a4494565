import { DataSource } from 'typeorm';
import { createProduct } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

const address = {
  name: 'Ada',
  line1: '1 Main St',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

describe('transactional outbox', () => {
  let api: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    api = await startTestApp({ RATE_LIMIT_PER_HOUR: '100000' });
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  const eventsFor = (resourceId: string) =>
    db.query<{ type: string; payload: Record<string, unknown> }[]>(
      'SELECT type, payload FROM events WHERE resource_id = $1 ORDER BY created_at, id',
      [resourceId],
    );

  async function stockedSku(quantity: number): Promise<string> {
    const product = await createProduct(api);
    await api.request('PUT', `/api/v1/inventory/${product.sku}`, {
      body: { quantityOnHand: quantity },
    });
    return product.sku;
  }

  it('records order.created with the order as /api/v1 shows it, in the order transaction', async () => {
    const sku = await stockedSku(5);
    const created = await api.post('/api/v1/orders', {
      customerId: 'c-1',
      shippingAddress: address,
      lines: [{ sku, quantity: 2 }],
    });
    expect(created.status).toBe(201);

    const events = await eventsFor(created.body.id);
    expect(events.map((e) => e.type)).toEqual(['order.created']);
    expect(events[0].payload).toEqual(created.body);
  });

  it('records order.status_changed for each transition with the new version', async () => {
    const sku = await stockedSku(5);
    const created = await api.post('/api/v1/orders', {
      customerId: 'c-1',
      shippingAddress: address,
      lines: [{ sku, quantity: 1 }],
    });
    await api.request('PATCH', `/api/v1/orders/${created.body.id}/status`, {
      body: { status: 'confirmed' },
    });
    await api.request('PATCH', `/api/v1/orders/${created.body.id}/status`, {
      body: { status: 'cancelled' },
    });

    const events = await eventsFor(created.body.id);
    expect(events.map((e) => [e.type, e.payload.status, e.payload.version])).toEqual([
      ['order.created', 'pending', 1],
      ['order.status_changed', 'confirmed', 2],
      ['order.status_changed', 'cancelled', 3],
    ]);
  });

  it('records nothing when the change is refused', async () => {
    const sku = await stockedSku(1);
    const before = await db.query<{ n: string }[]>('SELECT count(*) AS n FROM events');
    const refused = await api.post('/api/v1/orders', {
      customerId: 'c-1',
      shippingAddress: address,
      lines: [{ sku, quantity: 2 }],
    });
    expect(refused.status).toBe(409);
    const after = await db.query<{ n: string }[]>('SELECT count(*) AS n FROM events');
    expect(after[0].n).toBe(before[0].n);
  });
});
