/** The life of an invoice (API.md §3). */
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * What a transition writes besides the status: `issue` stamps `issuedAt`, `pay` stamps
 * `paidAt` (and the invoice then owes nothing), `void` writes nothing else.
 */
export type InvoiceEffect = 'issue' | 'pay' | 'void';

/**
 * The one table of allowed transitions and their effects. Whatever is not listed, staying
 * in the same status included, is `409 invalid_status_transition`.
 */
const TRANSITIONS: Record<InvoiceStatus, Partial<Record<InvoiceStatus, InvoiceEffect>>> = {
  draft: { open: 'issue', void: 'void' },
  open: { paid: 'pay', void: 'void' },
  paid: {},
  void: {},
};

/** The effect of moving `from` → `to`, or undefined when that move is not allowed. */
export function invoiceEffectOf(from: InvoiceStatus, to: InvoiceStatus): InvoiceEffect | undefined {
  return TRANSITIONS[from][to];
}

/** Where an invoice in `from` may go next (for messages and documentation). */
export function nextInvoiceStatuses(from: InvoiceStatus): InvoiceStatus[] {
  return INVOICE_STATUSES.filter((to) => TRANSITIONS[from][to] !== undefined);
}

/** `dueDate` and `notes` may change only while the invoice can still be paid. */
export function isInvoiceEditable(status: InvoiceStatus): boolean {
  return status === 'draft' || status === 'open';
}

/**
 * What the invoice still asks for, in minor units: its total while draft or open; nothing
 * once paid, nor once void (a voided invoice is cancelled and asks for nothing).
 */
export function amountDueMinor(status: InvoiceStatus, totalMinor: string): string {
  return isInvoiceEditable(status) ? totalMinor : '0';
}
