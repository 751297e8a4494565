import { createProduct, productBody } from './support/factories';
import { expectProblem, fieldsOf } from './support/problem';
import { addressBody, ORDER_TEST_ENV, orderBody, stockedProduct } from './support/order-factories';
import { startTestApp, TestApp } from './support/test-app';

/**
 * A length bound counts code points, as the documents' maxLength (JSON Schema) and the
 * varchar columns do. "a" followed by U+FE0F (a variation selector) is two code points;
 * validator.js counted the pair as one, so such text passed validation and then broke the
 * column (500) or the documented maxLength (src/http/input/code-point-length.ts).
 */
let api: TestApp;

beforeAll(async () => {
  api = await startTestApp(ORDER_TEST_ENV);
});
afterAll(() => api?.close());

/** `pairs` times "a" + U+FE0F: 2 × pairs code points. */
const selected = (pairs: number) => 'a\uFE0F'.repeat(pairs);

it('refuses a product name over 200 code points with 422 naming it, and stores nothing', async () => {
  const body = productBody({ name: selected(101) });

  const response = await api.post('/api/v1/products', body);

  expect(fieldsOf(expectProblem(response, 422, 'validation_failed'))).toEqual(['name']);
  expect((await api.get(`/api/v1/products?q=${body.sku}`)).body.data).toEqual([]);
});

it('takes a product name of exactly 200 code points and gives it back unchanged', async () => {
  const response = await api.post('/api/v1/products', productBody({ name: selected(100) }));

  expect(response.status).toBe(201);
  expect(response.body.name).toBe(selected(100));
});

it('counts in nested objects and on PATCH: shippingAddress.city over 100', async () => {
  const product = await stockedProduct(api, 5);
  const lines = [{ sku: product.sku, quantity: 1 }];

  const created = await api.post(
    '/api/v1/orders',
    orderBody(lines, { shippingAddress: addressBody({ city: selected(51) }) }),
  );
  const order = await api.post('/api/v1/orders', orderBody(lines));
  const patched = await api.request('PATCH', `/api/v1/orders/${order.body.id}`, {
    body: { shippingAddress: addressBody({ city: selected(51) }) },
  });

  expect(fieldsOf(expectProblem(created, 422, 'validation_failed'))).toEqual([
    'shippingAddress.city',
  ]);
  expect(fieldsOf(expectProblem(patched, 422, 'validation_failed'))).toEqual([
    'shippingAddress.city',
  ]);
});

it('counts in query strings too: a category filter over 100 is 400', async () => {
  await createProduct(api);

  const response = await api.get(`/api/v2/products?category=${encodeURIComponent(selected(51))}`);

  expect(fieldsOf(expectProblem(response, 400, 'bad_request'))).toEqual(['category']);
});
