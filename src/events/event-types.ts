/** Every event the service emits (API.md §10), with the resource it carries. */
export const EVENT_TYPES = {
  'order.created': 'order',
  'order.status_changed': 'order',
  'invoice.created': 'invoice',
  'invoice.updated': 'invoice',
  'invoice.paid': 'invoice',
  'shipment.created': 'shipment',
  'shipment.updated': 'shipment',
} as const;

export type EventType = keyof typeof EVENT_TYPES;
