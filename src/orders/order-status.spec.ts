import { ORDER_STATUSES, OrderStatus, StockEffect, ORDER_LIFE } from './order-status';

/** API.md §3: pending → confirmed → shipped → delivered; pending|confirmed → cancelled. */
const ALLOWED: Record<string, StockEffect> = {
  'pending→confirmed': 'none',
  'pending→cancelled': 'release',
  'confirmed→shipped': 'ship',
  'confirmed→cancelled': 'release',
  'shipped→delivered': 'none',
};

const EVERY_PAIR: [OrderStatus, OrderStatus][] = ORDER_STATUSES.flatMap((from) =>
  ORDER_STATUSES.map((to) => [from, to] as [OrderStatus, OrderStatus]),
);

describe('order status transitions', () => {
  it('covers all 25 pairs of the five statuses', () => {
    expect(EVERY_PAIR).toHaveLength(25);
  });

  it.each(EVERY_PAIR)('%s → %s', (from, to) => {
    const expected = ALLOWED[`${from}→${to}`];

    expect(ORDER_LIFE.effectOf(from, to)).toBe(expected);
  });

  it('allows exactly the five transitions of the contract', () => {
    const allowed = EVERY_PAIR.filter(
      ([from, to]) => ORDER_LIFE.effectOf(from, to) !== undefined,
    ).map(([from, to]) => `${from}→${to}`);

    expect(allowed.sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('lists where each status may go next', () => {
    expect(Object.fromEntries(ORDER_STATUSES.map((s) => [s, ORDER_LIFE.next(s)]))).toEqual({
      pending: ['confirmed', 'cancelled'],
      confirmed: ['shipped', 'cancelled'],
      shipped: ['delivered'],
      delivered: [],
      cancelled: [],
    });
  });
});
