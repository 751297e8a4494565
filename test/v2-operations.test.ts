import { WebhookWorker } from '../src/events/deliveries/webhook-worker';
import { createProduct } from './support/factories';
import { confirmedOrder, createInvoice, createShipment } from './support/fulfilment-factories';
import { addressBody, ORDER_TEST_ENV, stockedProduct } from './support/order-factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §11: /api/v2 serves every operation of v1. Most behaviour is tested through v1;
 * here each v2 write and read those tests leave out answers as its own document says
 * (test-app.ts checks every answer against it), with v2's money objects where v1 has a
 * price/currency pair.
 */
let api: TestApp;

beforeAll(async () => {
  api = await startTestApp({ ...ORDER_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
});
afterAll(() => api?.close());

const ifMatch = (version: number) => ({ 'If-Match': `"${version}"` });
const MONEY = { amount: expect.stringMatching(/^\d+\.\d{2}$/), currency: 'EUR' };

it('replaces a product with PUT, its price a money object', async () => {
  const product = await createProduct(api);

  const replaced = await api.request('PUT', `/api/v2/products/${product.id}`, {
    body: {
      sku: product.sku,
      name: 'Replaced',
      category: 'general',
      price: { amount: '7.50', currency: 'EUR' },
    },
    headers: ifMatch(product.version),
  });

  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({
    name: 'Replaced',
    price: { amount: '7.50', currency: 'EUR' },
    version: product.version + 1,
  });
});

describe('inventory', () => {
  it('sets stock with PUT and PATCH, and lists and reads its adjustments', async () => {
    const product = await createProduct(api);
    const path = `/api/v2/inventory/${product.sku}`;

    const put = await api.request('PUT', path, { body: { quantityOnHand: 5, reorderLevel: 1 } });
    const patched = await api.request('PATCH', path, {
      body: { quantityOnHand: 8 },
      headers: ifMatch(put.body.version),
    });
    const adjusted = await api.post(`${path}/adjustments`, { delta: -2, reason: 'damaged' });
    const list = await api.get(`${path}/adjustments`);
    const one = await api.get(`${path}/adjustments/${adjusted.body.id}`);

    expect([put.status, patched.status, adjusted.status, list.status, one.status]).toEqual([
      200, 200, 201, 200, 200,
    ]);
    expect(patched.body).toMatchObject({ quantityOnHand: 8, quantityAvailable: 8 });
    expect(list.body.data.map((a: { id: string }) => a.id)).toContain(adjusted.body.id);
    expect(one.body).toMatchObject({ id: adjusted.body.id, delta: -2 });
  });
});

describe('orders, invoices and shipments', () => {
  it('patches an order and moves its status', async () => {
    const product = await stockedProduct(api, 5);
    const created = await api.post('/api/v2/orders', {
      customerId: 'cus_v2',
      lines: [{ sku: product.sku, quantity: 1 }],
      shippingAddress: addressBody(),
    });

    const patched = await api.request('PATCH', `/api/v2/orders/${created.body.id}`, {
      body: { notes: 'leave at the door', shippingAddress: addressBody({ city: 'Hamburg' }) },
    });
    const confirmed = await api.request('PATCH', `/api/v2/orders/${created.body.id}/status`, {
      body: { status: 'confirmed' },
      headers: ifMatch(patched.body.version),
    });

    expect([created.status, patched.status, confirmed.status]).toEqual([201, 200, 200]);
    expect(patched.body).toMatchObject({ notes: 'leave at the door', total: MONEY });
    expect(confirmed.body).toMatchObject({ status: 'confirmed' });
  });

  it('patches an invoice and moves its status', async () => {
    const { order } = await confirmedOrder(api);
    const invoice = await createInvoice(api, order.id);

    const patched = await api.request('PATCH', `/api/v2/invoices/${invoice.id}`, {
      body: { notes: 'net 30' },
    });
    const issued = await api.request('PATCH', `/api/v2/invoices/${invoice.id}/status`, {
      body: { status: 'open' },
    });

    expect([patched.status, issued.status]).toEqual([200, 200]);
    expect(patched.body).toMatchObject({ notes: 'net 30', total: MONEY, amountDue: MONEY });
    expect(issued.body).toMatchObject({ status: 'open' });
  });

  it('patches a shipment', async () => {
    const { order } = await confirmedOrder(api);
    const shipment = await createShipment(api, order.id);

    const patched = await api.request('PATCH', `/api/v2/shipments/${shipment.id}`, {
      body: { trackingNumber: 'JD0001', status: 'in_transit' },
    });

    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ trackingNumber: 'JD0001', status: 'in_transit' });
  });
});

describe('webhook endpoints', () => {
  it('registers, reads, patches, rotates the secret of and deletes an endpoint', async () => {
    const created = await api.post('/api/v2/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['order.created'],
      description: 'v2',
    });
    const path = `/api/v2/webhook-endpoints/${created.body.id}`;

    const read = await api.get(path);
    const patched = await api.request('PATCH', path, { body: { enabled: false } });
    const rotated = await api.post(`${path}/secret-rotations`, undefined);
    const deleted = await api.request('DELETE', path);

    expect([created.status, read.status, patched.status, rotated.status, deleted.status]).toEqual([
      201, 200, 200, 200, 204,
    ]);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(read.body.secret).toBeUndefined();
    expect(patched.body).toMatchObject({ enabled: false });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await api.get(path)).status).toBe(404);
  });

  it('lists the deliveries of an endpoint, reads one and sends a failed one again', async () => {
    const endpoint = await api.post('/api/v2/webhook-endpoints', {
      url: 'http://127.0.0.1:9/closed',
      events: ['order.created'],
    });
    await confirmedOrder(api);
    // nothing listens on port 9: the attempt fails and a retry is scheduled
    await api.app.get(WebhookWorker).runOnce();
    const path = `/api/v2/webhook-endpoints/${endpoint.body.id}/deliveries`;

    const list = await api.get(path);
    const [delivery] = list.body.data as { id: string; status: string }[];
    const one = await api.get(`${path}/${delivery.id}`);
    const retry = await api.post(`${path}/${delivery.id}/retries`, undefined);

    expect([list.status, one.status, retry.status]).toEqual([200, 200, 202]);
    expect(one.body).toMatchObject({ status: 'failed', attemptCount: 1 });
    expect(retry.body).toMatchObject({ id: delivery.id, status: 'pending', attemptCount: 1 });
    await api.request('DELETE', `/api/v2/webhook-endpoints/${endpoint.body.id}`);
  });
});

describe('API keys, users and OAuth clients', () => {
  it('reads the usage of an API key, then revokes it', async () => {
    const key = await api.post('/api/v2/api-keys', { name: 'v2', role: 'operations' });
    const path = `/api/v2/api-keys/${key.body.id}`;

    const usage = await api.get(`${path}/usage`);
    const revoked = await api.request('DELETE', path);

    expect([key.status, usage.status, revoked.status]).toEqual([201, 200, 204]);
  });

  it('creates, patches and deletes a user', async () => {
    const created = await api.post('/api/v2/users', {
      email: `v2-${Date.now()}@example.com`,
      password: 'correct horse battery staple',
      roles: ['operations'],
    });
    const path = `/api/v2/users/${created.body.id}`;

    const patched = await api.request('PATCH', path, { body: { name: 'Vee Two' } });
    const deleted = await api.request('DELETE', path);

    expect([created.status, patched.status, deleted.status]).toEqual([201, 200, 204]);
    expect(patched.body).toMatchObject({ name: 'Vee Two' });
  });

  it('registers, reads, patches and deletes an OAuth client', async () => {
    const created = await api.post('/api/v2/oauth-clients', {
      name: 'v2 client',
      redirectUris: ['https://app.example.com/cb'],
      public: false,
      scopes: ['products:read'],
    });
    const path = `/api/v2/oauth-clients/${created.body.id}`;

    const read = await api.get(path);
    const patched = await api.request('PATCH', path, { body: { name: 'renamed' } });
    const deleted = await api.request('DELETE', path);

    expect([created.status, read.status, patched.status, deleted.status]).toEqual([
      201, 200, 200, 204,
    ]);
    expect(created.body.clientSecret).toEqual(expect.any(String));
    expect(read.body.clientSecret).toBeUndefined();
    expect(patched.body).toMatchObject({ name: 'renamed' });
  });
});
