import { createProduct, productBody } from './support/factories';
import { confirmedOrder } from './support/fulfilment-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { addressBody, ORDER_TEST_ENV, orderBody, stockedProduct } from './support/order-factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Text people read (names, address lines, carriers, reasons) holds a visible character and
 * no control character; free text (descriptions, notes) may break lines, and holds no
 * other control character (src/common/dto/text.ts). Anything else is 422 naming the field,
 * and nothing is stored.
 */
let api: TestApp;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
});
afterAll(() => api?.close());

const BLANK = ['', ' ', '   ', '\t', '\u00A0\u2003'];
const CONTROLLED = ['Red\u0000shirt', 'Red\nshirt', '\u001b[31mRed', 'Red\u007F', 'Red\u0085shirt'];

it.each([...BLANK.slice(1), ...CONTROLLED])(
  'refuses the product name %j with 422 naming it, and stores nothing',
  async (name) => {
    const body = productBody({ name });

    const response = await api.post('/api/v1/products', body);

    expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toEqual(['name']);
    expect((await api.get(`/api/v1/products?q=${body.sku}`)).body.data).toEqual([]);
  },
);

it('takes names with spaces inside, and any script, as sent', async () => {
  const name = ' Tee-shirt rouge, taille M 👕 Ünïcødé 名前 ';

  const response = await api.post('/api/v1/products', productBody({ name, category: 'a b' }));

  expect(response.status).toBe(201);
  expect(response.body.name).toBe(name);
});

it('takes line breaks and tabs in a description, and refuses other control characters', async () => {
  const product = await createProduct(api);
  const path = `/api/v1/products/${product.id}`;

  const multiLine = await api.request('PATCH', path, { body: { description: 'a\n\tb\r\nc' } });
  const escape = await api.request('PATCH', path, { body: { description: 'a\u001b[2Jb' } });
  const blankCategory = await api.request('PATCH', path, { body: { category: ' ' } });

  expect(multiLine.status).toBe(200);
  expect(multiLine.body.description).toBe('a\n\tb\r\nc');
  expect(fieldsOf(expectProblem(escape, 422, 'validation_failed'))).toEqual(['description']);
  expect(fieldsOf(expectProblem(blankCategory, 422, 'validation_failed'))).toEqual(['category']);
  expect((await api.get(path)).body.description).toBe('a\n\tb\r\nc');
});

it('refuses a blank recipient or address line on an order, on POST and PATCH', async () => {
  const product = await stockedProduct(api, 5);
  const lines = [{ sku: product.sku, quantity: 1 }];

  const created = await api.post(
    '/api/v1/orders',
    orderBody(lines, { shippingAddress: addressBody({ name: '  ', line2: '\u0007' }) }),
  );
  const order = await api.post(
    '/api/v1/orders',
    orderBody(lines, { notes: 'Ring twice.\nThen wait.' }),
  );
  const patched = await api.request('PATCH', `/api/v1/orders/${order.body.id}`, {
    body: { shippingAddress: addressBody({ line1: '\t' }) },
  });

  expect(fieldsOf(expectProblem(created, 422, 'validation_failed')).sort()).toEqual([
    'shippingAddress.line2',
    'shippingAddress.name',
  ]);
  expect(order.status).toBe(201);
  expect(order.body.notes).toBe('Ring twice.\nThen wait.');
  expect(fieldsOf(expectProblem(patched, 422, 'validation_failed'))).toEqual([
    'shippingAddress.line1',
  ]);
});

it('refuses a blank carrier, API key name or stock adjustment reason', async () => {
  const { order } = await confirmedOrder(api);
  const product = await createProduct(api);

  const shipment = await api.post('/api/v1/shipments', { orderId: order.id, carrier: ' ' });
  const key = await api.post('/api/v1/api-keys', { name: '\u0085', role: 'analyst' });
  const adjustment = await api.post(`/api/v1/inventory/${product.sku}/adjustments`, {
    delta: 1,
    reason: '   ',
  });

  expect(fieldsOf(expectProblem(shipment, 422, 'validation_failed'))).toEqual(['carrier']);
  expect(fieldsOf(expectProblem(key, 422, 'validation_failed'))).toEqual(['name']);
  expect(fieldsOf(expectProblem(adjustment, 422, 'validation_failed'))).toEqual(['reason']);
});
