import { confirmedOrder, createInvoice, setInvoiceStatus } from './support/fulfilment-factories';
import {
  createOrder,
  ORDER_TEST_ENV,
  setOrderStatus,
  stockedProduct,
} from './support/order-factories';
import type { ApiResponse, TestApp } from './support/test-app';
import { startTestApp } from './support/test-app';

/**
 * API.md §3 and §5: `GET …/status` is `{status, history}` under the resource's ETag. Read
 * while the status changes, every answer is one moment of the resource: the last entry of
 * its history is its status, and one ETag always comes with one body.
 */

const ROUNDS = 12;
const READERS = 12;

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
});

afterAll(async () => {
  await api?.close();
});

interface StatusBody {
  status: string;
  history: { from: string | null; to: string }[];
}

/** Fires the change and READERS reads of `path` at once; returns every status answer. */
async function readWhileChanging(
  path: string,
  change: () => Promise<ApiResponse>,
): Promise<ApiResponse<StatusBody>[]> {
  const reads = Array.from({ length: READERS }, (_, i) =>
    new Promise((resolve) => setTimeout(resolve, i * 1.5)).then(() => api.get(path)),
  );
  const [changed, ...answers] = await Promise.all([change(), ...reads]);
  expect(changed.status).toBe(200);
  return [changed, ...answers] as ApiResponse<StatusBody>[];
}

function expectOneMomentEach(
  answers: ApiResponse<StatusBody>[],
  bodiesByEtag: Map<string, string>,
) {
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    const { status, history } = answer.body;
    expect(status).toBe(history[history.length - 1].to);
    const etag = answer.headers.get('etag') as string;
    const body = JSON.stringify(answer.body);
    expect([etag, body]).toEqual([etag, bodiesByEtag.get(etag) ?? body]);
    bodiesByEtag.set(etag, body);
  }
}

it(`an order's status read while it changes: the history ends with the status, one ETag one body (${ROUNDS} rounds)`, async () => {
  const product = await stockedProduct(api, ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    const order = await createOrder(api, [{ sku: product.sku, quantity: 1 }]);
    const answers = await readWhileChanging(`/api/v1/orders/${order.id}/status`, () =>
      setOrderStatus(api, order.id, 'confirmed'),
    );
    expectOneMomentEach(answers, new Map());
  }
});

it(`an invoice's status read while it changes: the history ends with the status, one ETag one body (${ROUNDS} rounds)`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const invoice = await createInvoice(api, (await confirmedOrder(api)).order.id);
    const answers = await readWhileChanging(`/api/v1/invoices/${invoice.id}/status`, () =>
      setInvoiceStatus(api, invoice.id, 'open'),
    );
    expectOneMomentEach(answers, new Map());
  }
});
