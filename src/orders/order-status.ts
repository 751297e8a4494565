import { statusMachine } from '../common/status-machine';

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
 * The allowed transitions and their stock effects. (Cancelling an order's shipment
 * returns it from shipped to confirmed through OrdersService.returnFromShipment; that is
 * not a client transition, so it is not here.)
 */
export const ORDER_LIFE = statusMachine<OrderStatus, StockEffect>('An order', ORDER_STATUSES, {
  pending: { confirmed: 'none', cancelled: 'release' },
  confirmed: { shipped: 'ship', cancelled: 'release' },
  shipped: { delivered: 'none' },
  delivered: {},
  cancelled: {},
});
