import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { hashApiKey } from '../../src/auth/api-keys/api-key-hash';
import { createProduct } from './factories';
import type { RequestOptions, TestApp } from './test-app';

/** Each test file's app gets a budget no test file reaches, so limits never interfere. */
export const ORDER_TEST_ENV = { RATE_LIMIT_PER_HOUR: '1000000' };

export const customerIdFor = (label = 'cus') => `${label}_${randomBytes(5).toString('hex')}`;

export function addressBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Ada Lovelace',
    line1: '12 Market Street',
    city: 'Berlin',
    postalCode: '10115',
    country: 'DE',
    ...overrides,
  };
}

export interface OrderLineBody {
  sku: string;
  quantity: number;
}

/** A POST /orders body for staff (it names a customer). */
export function orderBody(lines: OrderLineBody[], overrides: Record<string, unknown> = {}) {
  return {
    customerId: customerIdFor(),
    lines,
    shippingAddress: addressBody(),
    ...overrides,
  };
}

/** A product whose inventory holds `quantityOnHand` units; returns its product representation. */
export async function stockedProduct(
  api: TestApp,
  quantityOnHand: number,
  overrides: Record<string, unknown> = {},
) {
  const product = await createProduct(api, overrides);
  const response = await api.request('PUT', `/api/v1/inventory/${product.sku}`, {
    body: { quantityOnHand },
  });
  if (response.status !== 200) {
    throw new Error(`stock not set: ${response.status} ${response.text}`);
  }
  return product;
}

export interface Stock {
  quantityOnHand: number;
  quantityReserved: number;
  quantityAvailable: number;
}

export async function stockOf(api: TestApp, sku: string): Promise<Stock> {
  const response = await api.get(`/api/v1/inventory/${sku}`);
  if (response.status !== 200) throw new Error(`no stock for ${sku}: ${response.status}`);
  const { quantityOnHand, quantityReserved, quantityAvailable } = response.body;
  return { quantityOnHand, quantityReserved, quantityAvailable };
}

/** Places an order through the v1 API (as admin unless `options` say otherwise). */
export async function createOrder(
  api: TestApp,
  lines: OrderLineBody[],
  overrides: Record<string, unknown> = {},
  options: RequestOptions = {},
) {
  const response = await api.post('/api/v1/orders', orderBody(lines, overrides), options);
  if (response.status !== 201) {
    throw new Error(`order not created: ${response.status} ${response.text}`);
  }
  return response.body as { id: string; customerId: string; version: number; [key: string]: any };
}

export async function setOrderStatus(api: TestApp, id: string, status: string) {
  return api.request('PATCH', `/api/v1/orders/${id}/status`, { body: { status } });
}

/**
 * An API key with `role` (and, for customers, the customer it acts for), written straight
 * to the database as /api-keys would store it: tests of other resources need a key of a
 * role without an admin round trip (test/api-keys.test.ts covers the resource). Returns the
 * key and its subject.
 */
export async function createApiKey(
  api: TestApp,
  role: string,
  customerId: string | null = null,
): Promise<{ key: string; subject: string; as: RequestOptions }> {
  const key = `test-${role}-${randomBytes(16).toString('hex')}`;
  const id = randomUUID();
  await api.app
    .get(DataSource)
    .query(
      `INSERT INTO api_keys (id, name, prefix, key_hash, role, customer_id) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, `${role} test key`, key.slice(0, 10), hashApiKey(key), role, customerId],
    );
  return { key, subject: `api_key:${id}`, as: { headers: { 'X-API-Key': key } } };
}

/** The subject the bootstrap admin key acts as (the `actor` of its changes). */
export async function adminSubject(api: TestApp, adminKey: string): Promise<string> {
  const rows: { id: string }[] = await api.app
    .get(DataSource)
    .query(`SELECT id FROM api_keys WHERE key_hash = $1`, [hashApiKey(adminKey)]);
  return `api_key:${rows[0].id}`;
}
