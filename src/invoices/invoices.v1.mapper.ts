import { formatMoney } from '../common/money';
import type { InvoiceV1Dto } from './dto/invoice.dto';
import { amountDueMinor } from './invoice-status';
import type { InvoiceEntity } from './invoice.entity';

export function toInvoiceV1(i: InvoiceEntity): InvoiceV1Dto {
  return {
    id: i.id,
    number: i.number,
    orderId: i.orderId,
    customerId: i.customerId,
    status: i.status,
    currency: i.currency,
    lines: i.lines.map((l) => ({
      sku: l.sku,
      productId: l.productId,
      name: l.name,
      quantity: l.quantity,
      unitPrice: formatMoney(l.unitPriceMinor, i.totalScale),
      lineTotal: formatMoney(l.lineTotalMinor, i.totalScale),
    })),
    total: formatMoney(i.totalMinor, i.totalScale),
    amountDue: formatMoney(amountDueMinor(i.status, i.totalMinor), i.totalScale),
    dueDate: i.dueDate,
    issuedAt: i.issuedAt,
    paidAt: i.paidAt,
    notes: i.notes,
    version: i.version,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}
