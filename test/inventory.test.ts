import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InventoryRepository } from '../src/inventory/inventory.repository';
import { createProduct } from './support/factories';
import { createOrder, setOrderStatus } from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/** API.md §3 inventory: stock levels addressed by sku, and atomic adjustments. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Item {
  sku: string;
  productId: string;
  quantityOnHand: number;
  quantityReserved: number;
  quantityAvailable: number;
  reorderLevel: number;
  version: number;
}

interface Adjustment {
  id: string;
  sku: string;
  delta: number;
  reason: string;
  quantityOnHand: number;
  quantityAvailable: number;
}

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

const itemPath = (sku: string) => `/api/v1/inventory/${encodeURIComponent(sku)}`;
const adjustmentsPath = (sku: string) => `${itemPath(sku)}/adjustments`;

async function getItem(sku: string): Promise<Item> {
  const response = await api.get<Item>(itemPath(sku));
  expect(response.status).toBe(200);
  return response.body;
}

/**
 * A product whose inventory item holds `quantityOnHand` and `reorderLevel`, set by a PUT:
 * its ledger starts with that entry when `quantityOnHand` is not 0.
 */
async function stockedSku(quantityOnHand: number, reorderLevel = 0): Promise<string> {
  const { sku } = await createProduct(api);
  const response = await api.request('PUT', itemPath(sku), {
    body: { quantityOnHand, reorderLevel },
  });
  expect(response.status).toBe(200);
  return sku;
}

const adjust = (sku: string, delta: number, reason = 'cycle count') =>
  api.post<Adjustment>(adjustmentsPath(sku), { delta, reason });

async function ledger(sku: string): Promise<{ data: Adjustment[]; total: number }> {
  const response = await api.get(`${adjustmentsPath(sku)}?limit=100`);
  expect(response.status).toBe(200);
  return { data: response.body.data, total: response.body.pagination.total };
}

/** The ledger without its first entry, the PUT of stockedSku(). */
async function adjustmentsAfterStocking(sku: string): Promise<Adjustment[]> {
  const { data } = await ledger(sku);
  expect(data[data.length - 1].reason).toMatch(/^quantityOnHand set to /);
  return data.slice(0, -1);
}

describe('GET /api/v1/inventory', () => {
  it('answers one item by sku with its quantities and product', async () => {
    const product = await createProduct(api);

    const response = await api.get(itemPath(product.sku));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      sku: product.sku,
      productId: product.id,
      quantityOnHand: 0,
      quantityReserved: 0,
      quantityAvailable: 0,
      reorderLevel: 0,
      version: 1,
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: expect.stringMatching(RFC3339_UTC),
    });
  });

  it('lists items in the collection envelope', async () => {
    const sku = await stockedSku(4, 2);

    const response = await api.get('/api/v1/inventory?limit=100');

    expect(response.status).toBe(200);
    expect(response.body.pagination).toMatchObject({ limit: 100 });
    const listed = (response.body.data as Item[]).find((i) => i.sku === sku);
    expect(listed).toMatchObject({ sku, quantityOnHand: 4, quantityAvailable: 4, reorderLevel: 2 });
    expect(response.body.pagination.total).toBe(response.body.data.length);
  });

  it.each([
    ['an unknown sku', 'NO-SUCH-SKU-1'],
    ['a sku that cannot exist', 'bad%20sku'],
  ])('answers 404 not_found for %s', async (_situation, sku) => {
    const response = await api.get(`/api/v1/inventory/${sku}`);

    expectProblem(response, 404, 'not_found');
  });

  it('serves the same item under /api/v2', async () => {
    const sku = await stockedSku(3);

    const [v1, v2] = await Promise.all([
      api.get(itemPath(sku)),
      api.get(`/api/v2/inventory/${sku}`),
    ]);

    expect(v2.status).toBe(200);
    expect(v2.body).toEqual(v1.body);
  });
});

describe('GET /api/v1/inventory?belowReorderLevel', () => {
  it('true lists only items whose available quantity is below their reorder level; false the others', async () => {
    const below = await stockedSku(5, 10);
    const atLevel = await stockedSku(10, 10);
    const above = await stockedSku(20, 5);
    const noLevel = await stockedSku(0, 0);

    const lows = await api.get('/api/v1/inventory?belowReorderLevel=true&limit=100');
    const others = await api.get('/api/v1/inventory?belowReorderLevel=false&limit=100');

    expect(lows.status).toBe(200);
    expect(others.status).toBe(200);
    const lowSkus = (lows.body.data as Item[]).map((i) => i.sku);
    const otherSkus = (others.body.data as Item[]).map((i) => i.sku);
    expect(lowSkus).toContain(below);
    expect(lowSkus).not.toEqual(expect.arrayContaining([atLevel]));
    expect(otherSkus).toEqual(expect.arrayContaining([atLevel, above, noLevel]));
    expect(otherSkus).not.toContain(below);
    for (const item of lows.body.data as Item[]) {
      expect(item.quantityAvailable).toBeLessThan(item.reorderLevel);
    }
    for (const item of others.body.data as Item[]) {
      expect(item.quantityAvailable).toBeGreaterThanOrEqual(item.reorderLevel);
    }
    const all = await api.get('/api/v1/inventory?limit=1');
    expect(lows.body.pagination.total + others.body.pagination.total).toBe(
      all.body.pagination.total,
    );
  });

  it('follows reservations: an order that takes an item below its level lists it as low, its cancellation as not', async () => {
    const sku = await stockedSku(20, 10);
    const lowSkus = async () => {
      const response = await api.get('/api/v1/inventory?belowReorderLevel=true&limit=100');
      expect(response.status).toBe(200);
      return (response.body.data as Item[]).map((i) => i.sku);
    };
    expect(await lowSkus()).not.toContain(sku);

    const order = await createOrder(api, [{ sku, quantity: 15 }]);
    expect(await lowSkus()).toContain(sku);

    expect((await setOrderStatus(api, order.id, 'cancelled')).status).toBe(200);
    expect(await lowSkus()).not.toContain(sku);
  });

  it('refuses a value that is not a boolean with 400', async () => {
    const response = await api.get('/api/v1/inventory?belowReorderLevel=yes');

    expectProblem(response, 400, 'bad_request');
  });
});

describe('PUT /api/v1/inventory/{sku}', () => {
  it('sets quantityOnHand and resets an omitted reorderLevel to 0', async () => {
    const sku = await stockedSku(3, 8);
    const before = await getItem(sku);

    const response = await api.request('PUT', itemPath(sku), { body: { quantityOnHand: 12 } });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      sku,
      quantityOnHand: 12,
      quantityReserved: 0,
      quantityAvailable: 12,
      reorderLevel: 0,
      version: before.version + 1,
    });
    expect(await getItem(sku)).toEqual(response.body);
  });

  it.each([
    ['a negative quantityOnHand', { quantityOnHand: -1 }, 'quantityOnHand'],
    ['a missing quantityOnHand', { reorderLevel: 3 }, 'quantityOnHand'],
    ['a fractional quantityOnHand', { quantityOnHand: 1.5 }, 'quantityOnHand'],
    ['a negative reorderLevel', { quantityOnHand: 1, reorderLevel: -2 }, 'reorderLevel'],
    ['a null reorderLevel', { quantityOnHand: 1, reorderLevel: null }, 'reorderLevel'],
    [
      'quantityReserved, which orders own',
      { quantityOnHand: 1, quantityReserved: 0 },
      'quantityReserved',
    ],
  ])('refuses %s with 422 and changes nothing', async (_situation, body, field) => {
    const sku = await stockedSku(6, 2);

    const response = await api.request('PUT', itemPath(sku), { body });

    expectFieldError(response, field);
    expect(await getItem(sku)).toMatchObject({ quantityOnHand: 6, reorderLevel: 2, version: 2 });
  });

  it('answers 404 for an unknown sku', async () => {
    const response = await api.request('PUT', itemPath('NO-SUCH-SKU-2'), {
      body: { quantityOnHand: 1 },
    });

    expectProblem(response, 404, 'not_found');
  });
});

describe('PATCH /api/v1/inventory/{sku}', () => {
  it('changes reorderLevel only, keeping quantityOnHand', async () => {
    const sku = await stockedSku(9, 1);

    const response = await api.request('PATCH', itemPath(sku), { body: { reorderLevel: 4 } });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      quantityOnHand: 9,
      quantityAvailable: 9,
      reorderLevel: 4,
      version: 3,
    });
  });

  it('changes quantityOnHand only, keeping reorderLevel', async () => {
    const sku = await stockedSku(9, 4);

    const response = await api.request('PATCH', itemPath(sku), { body: { quantityOnHand: 2 } });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ quantityOnHand: 2, reorderLevel: 4 });
  });

  it.each([
    ['a negative quantityOnHand', { quantityOnHand: -5 }, 'quantityOnHand'],
    ['a null quantityOnHand', { quantityOnHand: null }, 'quantityOnHand'],
    ['a negative reorderLevel', { reorderLevel: -1 }, 'reorderLevel'],
    ['a string reorderLevel', { reorderLevel: '3' }, 'reorderLevel'],
    ['an unknown field', { sku: 'OTHER' }, 'sku'],
  ])('refuses %s with 422 and changes nothing', async (_situation, body, field) => {
    const sku = await stockedSku(6, 2);

    const response = await api.request('PATCH', itemPath(sku), { body });

    expectFieldError(response, field);
    expect(await getItem(sku)).toMatchObject({ quantityOnHand: 6, reorderLevel: 2, version: 2 });
  });

  it('answers 404 once the product is deleted', async () => {
    const product = await createProduct(api);
    await api.request('DELETE', `/api/v1/products/${product.id}`);

    const response = await api.request('PATCH', itemPath(product.sku), {
      body: { reorderLevel: 1 },
    });

    expectProblem(response, 404, 'not_found');
  });
});

describe('POST /api/v1/inventory/{sku}/adjustments', () => {
  it('applies the delta: 201, Location to the adjustment, and the resulting level', async () => {
    const sku = await stockedSku(10);
    const before = await getItem(sku);

    const response = await adjust(sku, -3, 'damaged in transit');

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: expect.stringMatching(UUID),
      sku,
      delta: -3,
      reason: 'damaged in transit',
      quantityOnHand: 7,
      quantityAvailable: 7,
    });
    const location = new URL(response.headers.get('location') ?? '', api.baseUrl).pathname;
    expect(location).toBe(`${adjustmentsPath(sku)}/${response.body.id}`);
    const fetched = await api.get(location);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(response.body);
    expect(await getItem(sku)).toMatchObject({
      quantityOnHand: 7,
      quantityAvailable: 7,
      version: before.version + 1,
    });
  });

  it('adds stock with a positive delta', async () => {
    const sku = await stockedSku(0);

    const response = await adjust(sku, 25, 'goods received');

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ delta: 25, quantityOnHand: 25 });
    expect(await getItem(sku)).toMatchObject({ quantityOnHand: 25, quantityAvailable: 25 });
  });

  it('is served under /api/v2 too, with a v2 Location', async () => {
    const sku = await stockedSku(1);

    const response = await api.post(`/api/v2/inventory/${sku}/adjustments`, {
      delta: 2,
      reason: 'found one box',
    });

    expect(response.status).toBe(201);
    const location = new URL(response.headers.get('location') ?? '', api.baseUrl).pathname;
    expect(location).toBe(`/api/v2/inventory/${sku}/adjustments/${response.body.id}`);
    expect(response.body).toMatchObject({ quantityOnHand: 3 });
  });

  it.each([
    ['a delta of 0', { delta: 0, reason: 'nothing' }, 'delta'],
    ['no delta', { reason: 'nothing' }, 'delta'],
    ['a fractional delta', { delta: 0.5, reason: 'half' }, 'delta'],
    ['a delta as a string', { delta: '2', reason: 'text' }, 'delta'],
    ['no reason', { delta: 1 }, 'reason'],
    ['an empty reason', { delta: 1, reason: '' }, 'reason'],
    ['an unknown field', { delta: 1, reason: 'x', quantityOnHand: 3 }, 'quantityOnHand'],
  ])('refuses %s with 422 and changes nothing', async (_situation, body, field) => {
    const sku = await stockedSku(5);

    const response = await api.post(adjustmentsPath(sku), body);

    expectFieldError(response, field);
    expect(await getItem(sku)).toMatchObject({ quantityOnHand: 5, version: 2 });
    expect(await adjustmentsAfterStocking(sku)).toEqual([]);
  });

  it('refuses a delta that would take stock below zero with 409 insufficient_stock and changes nothing', async () => {
    const sku = await stockedSku(4);
    await adjust(sku, 1);
    const before = await getItem(sku);

    const response = await adjust(sku, -6, 'shrinkage');

    expectProblem(response, 409, 'insufficient_stock');
    expect(await getItem(sku)).toEqual(before);
    expect(await adjustmentsAfterStocking(sku)).toHaveLength(1);
  });

  it('refuses a delta that would take stock above the most PUT accepts with 422 on `delta`, and changes nothing', async () => {
    const sku = await stockedSku(999_999_995);
    const before = await getItem(sku);

    const over = await adjust(sku, 6);

    const problem = expectProblem(over, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      {
        field: 'delta',
        message:
          'must be at most 5: on-hand stock is capped at 1000000000 units and 999999995 are on hand',
      },
    ]);
    expect(await getItem(sku)).toEqual(before);
    expect(await adjustmentsAfterStocking(sku)).toEqual([]);
    const full = await adjust(sku, 5);
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ quantityOnHand: 1_000_000_000 });
    expect((expectProblem(await adjust(sku, 1), 422, 'validation_failed').errors ?? [])[0]).toEqual(
      { field: 'delta', message: expect.stringMatching(/^must be negative: /) },
    );
  });

  it('refuses a delta whose sum is past the integer range on `delta`, and still takes stock off such an item', async () => {
    const sku = await stockedSku(0);
    // on hand far above the cap, as adjustments could leave it before they were capped
    await api.app
      .get(DataSource)
      .query(`UPDATE inventory_items SET quantity_on_hand = 2000000006 WHERE sku = $1`, [sku]);

    const over = await adjust(sku, 1_000_000_000);
    const down = await adjust(sku, -6);

    expect(expectProblem(over, 422, 'validation_failed').errors).toEqual([
      {
        field: 'delta',
        message: expect.stringMatching(/^must be negative: .* 2000000006 are on hand$/),
      },
    ]);
    expect(down.status).toBe(201);
    expect(down.body).toMatchObject({ delta: -6, quantityOnHand: 2_000_000_000 });
  });

  it('accepts a delta that takes stock to exactly zero', async () => {
    const sku = await stockedSku(4);

    const response = await adjust(sku, -4);

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ quantityOnHand: 0, quantityAvailable: 0 });
  });

  it.each([
    ['an unknown sku', 'NO-SUCH-SKU-3'],
    ['a sku that cannot exist', 'bad%20sku'],
  ])('answers 404 not_found for %s', async (_situation, sku) => {
    const response = await api.post(`/api/v1/inventory/${sku}/adjustments`, {
      delta: 1,
      reason: 'x',
    });

    expectProblem(response, 404, 'not_found');
  });

  it('answers 404 for the sku of a deleted product', async () => {
    const product = await createProduct(api);
    await api.request('DELETE', `/api/v1/products/${product.id}`);

    const response = await adjust(product.sku, 1);

    expectProblem(response, 404, 'not_found');
  });
});

describe('GET /api/v1/inventory/{sku}/adjustments', () => {
  it('pages the ledger newest first', async () => {
    const sku = await stockedSku(0);
    const first = (await adjust(sku, 1, 'first')).body;
    const second = (await adjust(sku, 2, 'second')).body;
    const third = (await adjust(sku, 3, 'third')).body;

    const page1 = await api.get(`${adjustmentsPath(sku)}?limit=2`);
    const page2 = await api.get(
      new URL(page1.body.pagination.next).pathname + new URL(page1.body.pagination.next).search,
    );

    expect(page1.status).toBe(200);
    expect(page1.body.data).toEqual([third, second]);
    expect(page1.body.pagination).toMatchObject({ total: 3, limit: 2, prev: null });
    expect(page2.status).toBe(200);
    expect(page2.body.data).toEqual([first]);
    expect(page2.body.pagination).toMatchObject({ total: 3, next: null });
  });

  it('records stock set by PUT and PATCH as the difference, so the ledger sums to on hand', async () => {
    const { sku } = await createProduct(api);
    const set = (method: string, quantityOnHand: number) =>
      api.request(method, itemPath(sku), { body: { quantityOnHand } });

    expect((await set('PUT', 10)).status).toBe(200);
    expect((await adjust(sku, -3)).status).toBe(201);
    expect((await set('PATCH', 4)).status).toBe(200);
    expect((await set('PUT', 4)).status).toBe(200); // no change, no entry
    const reorder = await api.request('PATCH', itemPath(sku), { body: { reorderLevel: 2 } });
    expect(reorder.status).toBe(200);

    const { data } = await ledger(sku);
    expect(data.map((entry) => [entry.delta, entry.reason, entry.quantityOnHand])).toEqual([
      [-3, 'quantityOnHand set to 4', 4],
      [-3, 'cycle count', 7],
      [10, 'quantityOnHand set to 10', 10],
    ]);
    const sum = data.reduce((total, entry) => total + entry.delta, 0);
    expect(sum).toBe((await getItem(sku)).quantityOnHand);
  });

  it('answers 404 for an unknown sku', async () => {
    const response = await api.get(adjustmentsPath('NO-SUCH-SKU-4'));

    expectProblem(response, 404, 'not_found');
  });

  it('answers 404 for an adjustment id that is not in this ledger', async () => {
    const sku = await stockedSku(1);
    const other = await stockedSku(1);
    const adjustment = (await adjust(other, 1)).body;

    const foreign = await api.get(`${adjustmentsPath(sku)}/${adjustment.id}`);
    const unknown = await api.get(`${adjustmentsPath(sku)}/${randomUUID()}`);

    expectProblem(foreign, 404, 'not_found');
    expectProblem(unknown, 404, 'not_found');
  });
});

describe('adjustments under concurrency', () => {
  it('applies 50 parallel adjustments exactly once each', async () => {
    const start = 100;
    const sku = await stockedSku(start);
    const before = await getItem(sku);
    const deltas = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 3 : -1));

    const responses = await Promise.all(
      deltas.map((delta, i) => adjust(sku, delta, `parallel ${i}`)),
    );

    expect(responses.map((r) => r.status)).toEqual(deltas.map(() => 201));
    const sum = deltas.reduce((a, b) => a + b, 0);
    expect(await getItem(sku)).toMatchObject({
      quantityOnHand: start + sum,
      quantityAvailable: start + sum,
      version: before.version + 50,
    });
    const data = await adjustmentsAfterStocking(sku);
    expect(data).toHaveLength(50);
    expect(new Set(data.map((a) => a.id)).size).toBe(50);
    // Newest first, each row's level is the level of the one before it plus its delta.
    for (let i = 0; i < data.length - 1; i++) {
      expect(data[i].quantityOnHand).toBe(data[i + 1].quantityOnHand + data[i].delta);
    }
    expect(data[0].quantityOnHand).toBe(start + sum);
    expect(data[data.length - 1].quantityOnHand - data[data.length - 1].delta).toBe(start);
  });

  it('keeps the ledger in the order changes were applied when PATCHes race adjustments', async () => {
    const sku = await stockedSku(50);
    const changes = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? adjust(sku, 2, `parallel ${i}`)
        : api.request('PATCH', itemPath(sku), { body: { quantityOnHand: 100 + i } }),
    );

    const responses = await Promise.all(changes);

    expect(responses.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    const data = await adjustmentsAfterStocking(sku);
    // every adjustment, and each PATCH that changed the stock (one may set what is there)
    expect(data.filter((entry) => entry.reason.startsWith('parallel'))).toHaveLength(20);
    // Newest first, each entry's level is the one before it plus its delta, and the
    // newest is the item's: no entry is out of the order it was applied in.
    for (let i = 0; i < data.length - 1; i++) {
      expect([i, data[i].quantityOnHand]).toEqual([i, data[i + 1].quantityOnHand + data[i].delta]);
    }
    expect(data[0].quantityOnHand).toBe((await getItem(sku)).quantityOnHand);
  });

  it('never takes stock above the cap: 30 parallel +1 on 10 units below it, exactly 10 succeed', async () => {
    const sku = await stockedSku(999_999_990);

    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => adjust(sku, 1, `receive ${i}`)),
    );

    const created = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status === 422);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(20);
    for (const r of refused) {
      expect(fieldsOf(expectProblem(r, 422, 'validation_failed'))).toEqual(['delta']);
    }
    expect(await getItem(sku)).toMatchObject({ quantityOnHand: 1_000_000_000 });
    expect(await adjustmentsAfterStocking(sku)).toHaveLength(10);
  });

  it('never takes stock below zero: 30 parallel -1 on 10 units, exactly 10 succeed', async () => {
    const sku = await stockedSku(10);

    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => adjust(sku, -1, `pick ${i}`)),
    );

    const created = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status === 409);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(20);
    for (const r of refused) expectProblem(r, 409, 'insufficient_stock');
    expect(await getItem(sku)).toMatchObject({ quantityOnHand: 0, quantityAvailable: 0 });
    expect(await adjustmentsAfterStocking(sku)).toHaveLength(10);
  });
});

describe('stock moves', () => {
  it('rewrite the item row in place (a HOT update): no index of the table gets a new entry', async () => {
    const sku = await stockedSku(10, 5);
    const runner = api.app.get(DataSource).createQueryRunner();
    await runner.startTransaction();
    // this transaction's counts, with what the connection did before and has not reported
    // yet
    const updates = async (): Promise<{ all: number; hot: number }> => {
      const [counts] = await runner.query(
        `SELECT n_tup_upd::int AS "all", n_tup_hot_upd::int AS hot
           FROM pg_stat_xact_user_tables WHERE relname = 'inventory_items'`,
      );
      return counts;
    };
    try {
      const before = await updates();
      // the order path's reservation; still above the reorder level afterwards
      const short = await api.app
        .get(InventoryRepository)
        .reserve(runner.manager, [{ sku, quantity: 3 }]);
      const after = await updates();

      expect(short).toEqual([]);
      expect({ all: after.all - before.all, hot: after.hot - before.hot }).toEqual({
        all: 1,
        hot: 1,
      });
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
