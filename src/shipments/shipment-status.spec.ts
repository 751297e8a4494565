import {
  isShipmentFinal,
  OrderEffect,
  SHIPMENT_LIFE,
  SHIPMENT_STATUSES,
  ShipmentStatus,
} from './shipment-status';

/** API.md §3: label_created → in_transit → delivered; label_created → cancelled. */
const ALLOWED: Record<string, OrderEffect> = {
  'label_created→in_transit': 'none',
  'label_created→cancelled': 'return',
  'in_transit→delivered': 'deliver',
};

const EVERY_PAIR: [ShipmentStatus, ShipmentStatus][] = SHIPMENT_STATUSES.flatMap((from) =>
  SHIPMENT_STATUSES.map((to) => [from, to] as [ShipmentStatus, ShipmentStatus]),
);

describe('shipment status transitions', () => {
  it('covers all 16 pairs of the four statuses', () => {
    expect(EVERY_PAIR).toHaveLength(16);
  });

  it.each(EVERY_PAIR)('%s → %s', (from, to) => {
    expect(SHIPMENT_LIFE.effectOf(from, to)).toBe(ALLOWED[`${from}→${to}`]);
  });

  it('allows exactly the three transitions of the contract', () => {
    const allowed = EVERY_PAIR.filter(
      ([from, to]) => SHIPMENT_LIFE.effectOf(from, to) !== undefined,
    ).map(([from, to]) => `${from}→${to}`);

    expect(allowed.sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('lists where each status may go next; delivered and cancelled are final', () => {
    expect(Object.fromEntries(SHIPMENT_STATUSES.map((s) => [s, SHIPMENT_LIFE.next(s)]))).toEqual({
      label_created: ['in_transit', 'cancelled'],
      in_transit: ['delivered'],
      delivered: [],
      cancelled: [],
    });
    expect(SHIPMENT_STATUSES.filter(isShipmentFinal)).toEqual(['delivered', 'cancelled']);
  });
});
