import {
  amountDueMinor,
  INVOICE_STATUSES,
  InvoiceEffect,
  INVOICE_LIFE,
  InvoiceStatus,
  isInvoiceEditable,
} from './invoice-status';

/** API.md §3: draft → open → paid; draft|open → void. */
const ALLOWED: Record<string, InvoiceEffect> = {
  'draft→open': 'issue',
  'draft→void': 'void',
  'open→paid': 'pay',
  'open→void': 'void',
};

const EVERY_PAIR: [InvoiceStatus, InvoiceStatus][] = INVOICE_STATUSES.flatMap((from) =>
  INVOICE_STATUSES.map((to) => [from, to] as [InvoiceStatus, InvoiceStatus]),
);

describe('invoice status transitions', () => {
  it('covers all 16 pairs of the four statuses', () => {
    expect(EVERY_PAIR).toHaveLength(16);
  });

  it.each(EVERY_PAIR)('%s → %s', (from, to) => {
    expect(INVOICE_LIFE.effectOf(from, to)).toBe(ALLOWED[`${from}→${to}`]);
  });

  it('allows exactly the four transitions of the contract', () => {
    const allowed = EVERY_PAIR.filter(
      ([from, to]) => INVOICE_LIFE.effectOf(from, to) !== undefined,
    ).map(([from, to]) => `${from}→${to}`);

    expect(allowed.sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('lists where each status may go next', () => {
    expect(Object.fromEntries(INVOICE_STATUSES.map((s) => [s, INVOICE_LIFE.next(s)]))).toEqual({
      draft: ['open', 'void'],
      open: ['paid', 'void'],
      paid: [],
      void: [],
    });
  });

  it('lets dueDate and notes change only while draft or open', () => {
    expect(INVOICE_STATUSES.filter(isInvoiceEditable)).toEqual(['draft', 'open']);
  });

  it('owes the total while draft or open, nothing once paid or void', () => {
    expect(INVOICE_STATUSES.map((s) => amountDueMinor(s, '4250'))).toEqual([
      '4250',
      '4250',
      '0',
      '0',
    ]);
  });
});
