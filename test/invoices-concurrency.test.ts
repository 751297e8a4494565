import { DataSource } from 'typeorm';
import { confirmedOrder, eventsFor } from './support/fulfilment-factories';
import { ORDER_TEST_ENV } from './support/order-factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §3: invoice numbers are unique and sequential per year. Creations racing for the
 * year's counter queue on its row, so twenty parallel ones get twenty consecutive numbers,
 * and a refused creation in the middle of them takes none.
 */

const NUMBER = /^INV-(\d{4})-(\d{6})$/;
const PARALLEL = 20;

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
});

afterAll(async () => {
  await api?.close();
});

it(`gives ${PARALLEL} concurrent creations for ${PARALLEL} orders unique, gapless, sequential numbers`, async () => {
  const orders: { id: string }[] = [];
  for (let i = 0; i < PARALLEL; i++) orders.push((await confirmedOrder(api)).order);
  const year = new Date().getUTCFullYear();

  const responses = await Promise.all(
    orders.map((order) => api.post('/api/v1/invoices', { orderId: order.id })),
  );

  expect(responses.map((r) => r.status)).toEqual(orders.map(() => 201));
  const numbers = responses.map((r) => r.body.number as string);
  expect(new Set(numbers).size).toBe(PARALLEL);
  for (const n of numbers) expect(n).toMatch(NUMBER);
  expect(numbers.map((n) => Number(NUMBER.exec(n)?.[1]))).toEqual(orders.map(() => year));
  // A fresh database: the year's first invoices, 1 to 20 with no gap.
  const sequences = numbers.map((n) => Number(NUMBER.exec(n)?.[2])).sort((a, b) => a - b);
  expect(sequences).toEqual(Array.from({ length: PARALLEL }, (_, i) => i + 1));
  // Each invoice belongs to the order it was created for, with its event.
  responses.forEach((r, i) => expect(r.body.orderId).toBe(orders[i].id));
  for (const r of responses) {
    expect((await eventsFor(api, r.body.id)).map((e) => e.type)).toEqual(['invoice.created']);
  }
  const counter = await api.app
    .get(DataSource)
    .query<{ last: number }[]>('SELECT last FROM invoice_counters WHERE year = $1', [year]);
  expect(counter[0].last).toBe(PARALLEL);
});

it('leaves no gap for creations refused while others race', async () => {
  const good: { id: string }[] = [];
  for (let i = 0; i < 5; i++) good.push((await confirmedOrder(api)).order);
  const twice = (await confirmedOrder(api)).order;
  const before = await api.get('/api/v1/invoices?sort=-number&limit=1');
  const last = Number(NUMBER.exec(before.body.data[0].number)?.[2]);

  // the same order five times: one wins, four are refused (409), none takes a number
  const responses = await Promise.all([
    ...good.map((order) => api.post('/api/v1/invoices', { orderId: order.id })),
    ...Array.from({ length: 5 }, () => api.post('/api/v1/invoices', { orderId: twice.id })),
  ]);

  const statuses = responses.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(6);
  expect(statuses.filter((s) => s === 409)).toHaveLength(4);
  const sequences = responses
    .filter((r) => r.status === 201)
    .map((r) => Number(NUMBER.exec(r.body.number)?.[2]))
    .sort((a, b) => a - b);
  expect(sequences).toEqual(Array.from({ length: 6 }, (_, i) => last + 1 + i));
});
