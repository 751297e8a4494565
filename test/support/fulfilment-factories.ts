import { DataSource } from 'typeorm';
import { createOrder, setOrderStatus, stockedProduct } from './order-factories';
import type { RequestOptions, TestApp } from './test-app';

export interface EventRow {
  type: string;
  payload: Record<string, any>;
}

/** The outbox rows of one resource, oldest first (API.md §10). */
export function eventsFor(api: TestApp, resourceId: string): Promise<EventRow[]> {
  return api.app
    .get(DataSource)
    .query<EventRow[]>(
      'SELECT type, payload FROM events WHERE resource_id = $1 ORDER BY created_at, id',
      [resourceId],
    );
}

/**
 * An order for `quantity` units of a fresh product holding `onHand`, moved through
 * `steps` (e.g. ['confirmed']); returns the order as /api/v1 shows it now and its sku.
 */
export interface OrderOptions {
  quantity?: number;
  onHand?: number;
  price?: string;
  currency?: string;
  /** fields of the POST /orders body, e.g. `customerId` */
  overrides?: Record<string, unknown>;
}

export async function orderThrough(
  api: TestApp,
  steps: string[],
  {
    quantity = 3,
    onHand = 10,
    price = '12.50',
    currency = 'EUR',
    overrides = {},
  }: OrderOptions = {},
) {
  const product = await stockedProduct(api, onHand, { price, currency });
  const order = await createOrder(api, [{ sku: product.sku, quantity }], overrides);
  for (const step of steps) {
    const response = await setOrderStatus(api, order.id, step);
    if (response.status !== 200) throw new Error(`${step}: ${response.status} ${response.text}`);
  }
  const current = await api.get(`/api/v1/orders/${order.id}`);
  return {
    order: current.body as { id: string; customerId: string; [key: string]: any },
    sku: product.sku,
  };
}

export const confirmedOrder = (api: TestApp, options?: OrderOptions) =>
  orderThrough(api, ['confirmed'], options);

/** Invoices an order through the v1 API (as admin unless `options` say otherwise). */
export async function createInvoice(
  api: TestApp,
  orderId: string,
  extra: Record<string, unknown> = {},
  options: RequestOptions = {},
) {
  const response = await api.post('/api/v1/invoices', { orderId, ...extra }, options);
  if (response.status !== 201) {
    throw new Error(`invoice not created: ${response.status} ${response.text}`);
  }
  return response.body as { id: string; number: string; version: number; [key: string]: any };
}

export async function setInvoiceStatus(api: TestApp, id: string, status: string) {
  return api.request('PATCH', `/api/v1/invoices/${id}/status`, { body: { status } });
}

/** Ships an order through the v1 API (as admin unless `options` say otherwise). */
export async function createShipment(
  api: TestApp,
  orderId: string,
  extra: Record<string, unknown> = {},
  options: RequestOptions = {},
) {
  const response = await api.post(
    '/api/v1/shipments',
    { orderId, carrier: 'DHL', ...extra },
    options,
  );
  if (response.status !== 201) {
    throw new Error(`shipment not created: ${response.status} ${response.text}`);
  }
  return response.body as { id: string; status: string; version: number; [key: string]: any };
}

/** `YYYY-MM-DD` of `date` plus `days`, UTC. */
export function dayAfter(date: string | Date, days: number): string {
  const d = new Date(typeof date === 'string' ? `${date.slice(0, 10)}T00:00:00Z` : date);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
