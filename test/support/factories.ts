import { randomBytes } from 'node:crypto';
import type { TestApp } from './test-app';

let counter = 0;

export function productBody(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    sku: `SKU-${randomBytes(4).toString('hex')}-${counter}`,
    name: `Product ${counter}`,
    category: 'general',
    price: '19.99',
    currency: 'EUR',
    ...overrides,
  };
}

/** Creates a product through the v1 API and returns its representation. */
export async function createProduct(api: TestApp, overrides: Record<string, unknown> = {}) {
  const response = await api.post('/api/v1/products', productBody(overrides));
  if (response.status !== 201) {
    throw new Error(`product not created: ${response.status} ${response.text}`);
  }
  return response.body as { id: string; sku: string; version: number; [key: string]: unknown };
}
