import { statusMachine } from '../common/status-machine';

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
 * The allowed transitions and their effect on the order. (A PATCH that sends the status
 * the shipment already has changes no status, so it is not a transition: see
 * ShipmentsService.)
 */
export const SHIPMENT_LIFE = statusMachine<ShipmentStatus, OrderEffect>(
  'A shipment',
  SHIPMENT_STATUSES,
  {
    label_created: { in_transit: 'none', cancelled: 'return' },
    in_transit: { delivered: 'deliver' },
    delivered: {},
    cancelled: {},
  },
);

/** A delivered or cancelled shipment is final: its carrier and tracking number stay. */
export function isShipmentFinal(status: ShipmentStatus): boolean {
  return SHIPMENT_LIFE.next(status).length === 0;
}
