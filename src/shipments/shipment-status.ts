/** The life of a shipment (API.md §3). */
export const SHIPMENT_STATUSES = ['label_created', 'in_transit', 'delivered', 'cancelled'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

/**
 * What a transition does to the shipment's order: `none`; `deliver` moves it from shipped
 * to delivered; `return` takes it back from shipped to confirmed and puts the shipped units
 * back on hand and reserved (OrdersService.returnFromShipment).
 */
export type OrderEffect = 'none' | 'deliver' | 'return';

/**
 * The one table of allowed transitions and their effect on the order. Whatever is not
 * listed is `409 invalid_status_transition`. (A PATCH that sends the status the shipment
 * already has changes no status, so it is not a transition: see ShipmentsService.)
 */
const TRANSITIONS: Record<ShipmentStatus, Partial<Record<ShipmentStatus, OrderEffect>>> = {
  label_created: { in_transit: 'none', cancelled: 'return' },
  in_transit: { delivered: 'deliver' },
  delivered: {},
  cancelled: {},
};

/** The order effect of moving `from` → `to`, or undefined when that move is not allowed. */
export function orderEffectOf(from: ShipmentStatus, to: ShipmentStatus): OrderEffect | undefined {
  return TRANSITIONS[from][to];
}

/** Where a shipment in `from` may go next (for messages and documentation). */
export function nextShipmentStatuses(from: ShipmentStatus): ShipmentStatus[] {
  return SHIPMENT_STATUSES.filter((to) => TRANSITIONS[from][to] !== undefined);
}

/** A delivered or cancelled shipment is final: its carrier and tracking number stay. */
export function isShipmentFinal(status: ShipmentStatus): boolean {
  return nextShipmentStatuses(status).length === 0;
}
