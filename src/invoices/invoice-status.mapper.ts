import type { InvoiceStatusDto } from './dto/invoice-status.dto';
import type { InvoiceWithHistory } from './invoices.service';

/** The status resource looks the same in every API version (it holds no money). */
export function toInvoiceStatus({ invoice, history }: InvoiceWithHistory): InvoiceStatusDto {
  return {
    status: invoice.status,
    history: history.map((h) => ({
      from: h.fromStatus,
      to: h.toStatus,
      at: h.at,
      actor: h.actor,
    })),
  };
}
