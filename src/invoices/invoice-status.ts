import { statusMachine } from '../common/status-machine';

/** The life of an invoice (API.md §3). */
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * What a transition writes besides the status: `issue` stamps `issuedAt`, `pay` stamps
 * `paidAt` (and the invoice then owes nothing), `void` writes nothing else.
 */
export type InvoiceEffect = 'issue' | 'pay' | 'void';

/** The allowed transitions and their effects. */
export const INVOICE_LIFE = statusMachine<InvoiceStatus, InvoiceEffect>(
  'An invoice',
  INVOICE_STATUSES,
  {
    draft: { open: 'issue', void: 'void' },
    open: { paid: 'pay', void: 'void' },
    paid: {},
    void: {},
  },
);

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
