import {
  createOrder,
  ORDER_TEST_ENV,
  orderBody,
  setOrderStatus,
  stockedProduct,
  stockOf,
} from './support/order-factories';
import { DataSource } from 'typeorm';
import { expectProblem } from './support/problem';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §3: "No interleaving of concurrent requests may ever oversell." Runs on the
 * embedded database by default and on PostgreSQL when DATABASE_URL is set; CI runs both.
 */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
});

afterAll(async () => {
  await api?.close();
});

describe('concurrent orders for scarce stock', () => {
  it('40 parallel single-unit orders for 10 units: exactly 10 created, 30 insufficient_stock', async () => {
    const product = await stockedProduct(api, 10);

    const responses = await Promise.all(
      Array.from({ length: 40 }, () =>
        api.post('/api/v1/orders', orderBody([{ sku: product.sku, quantity: 1 }])),
      ),
    );

    const created = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status === 409);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(30);
    for (const response of refused) {
      expect(expectProblem(response, 409, 'insufficient_stock').errors).toEqual([
        { field: 'lines[0].quantity', message: expect.stringContaining('0 available') },
      ]);
    }
    expect(new Set(created.map((r) => r.body.id)).size).toBe(10);
    expect(await stockOf(api, product.sku)).toEqual({
      quantityOnHand: 10,
      quantityReserved: 10,
      quantityAvailable: 0,
    });
    const listed = await api.get(`/api/v1/orders?limit=100&status=pending`);
    const forSku = listed.body.data.filter(
      (o: { lines: { sku: string }[] }) => o.lines[0].sku === product.sku,
    );
    expect(forSku).toHaveLength(10);
  });

  it('parallel multi-line orders over shared SKUs in opposite orders never oversell or deadlock', async () => {
    const a = await stockedProduct(api, 12);
    const b = await stockedProduct(api, 12);

    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post(
          '/api/v1/orders',
          orderBody(
            i % 2 === 0
              ? [
                  { sku: a.sku, quantity: 1 },
                  { sku: b.sku, quantity: 2 },
                ]
              : [
                  { sku: b.sku, quantity: 2 },
                  { sku: a.sku, quantity: 1 },
                ],
          ),
        ),
      ),
    );

    const created = responses.filter((r) => r.status === 201).length;
    expect(created).toBe(6);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(14);
    expect(await stockOf(api, a.sku)).toMatchObject({ quantityReserved: 6 });
    expect(await stockOf(api, b.sku)).toMatchObject({ quantityReserved: 12 });
  });
});

describe('orders racing the archive of their product', () => {
  it('each order is created or names no product (422), never short of stock; the archive is 204; nothing deadlocks', async () => {
    for (let round = 0; round < 8; round += 1) {
      const product = await stockedProduct(api, 100);
      const order = () =>
        api.post('/api/v1/orders', orderBody([{ sku: product.sku, quantity: 1 }]));

      const [before, archived, after] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, order)),
        api.request('DELETE', `/api/v1/products/${product.id}`),
        Promise.all(Array.from({ length: 10 }, order)),
      ]);

      const orders = [...before, ...after];
      expect(archived.status).toBe(204);
      for (const response of orders) {
        if (response.status !== 201) {
          expect(expectProblem(response, 422, 'validation_failed').errors).toEqual([
            { field: 'lines[0].sku', message: expect.stringContaining('names no product') },
          ]);
        }
      }
      // the reservations of the orders created stay on the archived item, and no others
      const created = orders.filter((r) => r.status === 201).length;
      const [item] = await api.app
        .get(DataSource)
        .query('SELECT quantity_reserved FROM inventory_items WHERE sku = $1', [product.sku]);
      expect(item.quantity_reserved).toBe(created);
    }
  });
});

describe('an order with a short line', () => {
  it('reserves nothing: the first line’s stock is untouched when the second is short', async () => {
    const plenty = await stockedProduct(api, 10);
    const scarce = await stockedProduct(api, 1);

    const response = await api.post(
      '/api/v1/orders',
      orderBody([
        { sku: plenty.sku, quantity: 4 },
        { sku: scarce.sku, quantity: 2 },
      ]),
    );

    const problem = expectProblem(response, 409, 'insufficient_stock');
    expect(problem.errors).toEqual([
      { field: 'lines[1].quantity', message: expect.stringContaining('1 available') },
    ]);
    expect(await stockOf(api, plenty.sku)).toEqual({
      quantityOnHand: 10,
      quantityReserved: 0,
      quantityAvailable: 10,
    });
    expect(await stockOf(api, scarce.sku)).toMatchObject({ quantityReserved: 0 });
  });

  it('names every short line, in the order the client sent them', async () => {
    const first = await stockedProduct(api, 0);
    const fine = await stockedProduct(api, 10);
    const last = await stockedProduct(api, 3);

    const response = await api.post(
      '/api/v1/orders',
      orderBody([
        { sku: last.sku, quantity: 5 },
        { sku: fine.sku, quantity: 1 },
        { sku: first.sku, quantity: 1 },
      ]),
    );

    const problem = expectProblem(response, 409, 'insufficient_stock');
    expect(problem.errors).toEqual([
      { field: 'lines[0].quantity', message: expect.stringContaining('3 available') },
      { field: 'lines[2].quantity', message: expect.stringContaining('0 available') },
    ]);
    expect((await stockOf(api, fine.sku)).quantityReserved).toBe(0);
  });
});

describe('concurrent status changes of one order', () => {
  it('10 parallel cancels: one applies, nine are invalid transitions, the stock is released once', async () => {
    const product = await stockedProduct(api, 10);
    const order = await createOrder(api, [{ sku: product.sku, quantity: 4 }]);
    const other = await createOrder(api, [{ sku: product.sku, quantity: 2 }]);

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => setOrderStatus(api, order.id, 'cancelled')),
    );

    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 200)) {
      expectProblem(r, 409, 'invalid_status_transition');
    }
    expect(await stockOf(api, product.sku)).toEqual({
      quantityOnHand: 10,
      quantityReserved: 2,
      quantityAvailable: 8,
    });
    expect((await api.get(`/api/v1/orders/${other.id}`)).body.status).toBe('pending');
  });

  it('a cancel racing a ship: exactly one wins, and the stock matches the winner', async () => {
    const product = await stockedProduct(api, 10);
    const order = await createOrder(api, [{ sku: product.sku, quantity: 3 }]);
    await setOrderStatus(api, order.id, 'confirmed');

    const [cancel, ship] = await Promise.all([
      setOrderStatus(api, order.id, 'cancelled'),
      setOrderStatus(api, order.id, 'shipped'),
    ]);

    expect([cancel.status, ship.status].sort()).toEqual([200, 409]);
    const stock = await stockOf(api, product.sku);
    if (cancel.status === 200) {
      expect(stock).toEqual({ quantityOnHand: 10, quantityReserved: 0, quantityAvailable: 10 });
    } else {
      expect(stock).toEqual({ quantityOnHand: 7, quantityReserved: 0, quantityAvailable: 7 });
    }
  });
});
