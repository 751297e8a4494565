/** The life of an order (API.md §3). */
export const ORDER_STATUSES = [
  'pending',
  'confirmed',
  'shipped',
  'delivered',
  'cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * What a transition does to the order's stock: `release` gives the reservation back,
 * `ship` takes the reserved units out of on-hand stock.
 */
export type StockEffect = 'none' | 'release' | 'ship';

/**
 * The one table of allowed transitions and their stock effects. Whatever is not listed,
 * staying in the same status included, is `409 invalid_status_transition`. (Cancelling an
 * order's shipment returns it from shipped to confirmed through
 * OrdersService.returnFromShipment; that is not a client transition, so it is not here.)
 */
const TRANSITIONS: Record<OrderStatus, Partial<Record<OrderStatus, StockEffect>>> = {
  pending: { confirmed: 'none', cancelled: 'release' },
  confirmed: { shipped: 'ship', cancelled: 'release' },
  shipped: { delivered: 'none' },
  delivered: {},
  cancelled: {},
};

/** The stock effect of moving `from` → `to`, or undefined when that move is not allowed. */
export function stockEffectOf(from: OrderStatus, to: OrderStatus): StockEffect | undefined {
  return TRANSITIONS[from][to];
}

/** Where an order in `from` may go next (for messages and documentation). */
export function nextStatuses(from: OrderStatus): OrderStatus[] {
  return ORDER_STATUSES.filter((to) => TRANSITIONS[from][to] !== undefined);
}

export function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}
