import type { MoneyDto } from '../common/dto/money.dto';
import { formatMoney } from '../common/money';
import type { InvoiceV2Dto } from './dto/invoice.dto';
import { amountDueMinor } from './invoice-status';
import type { InvoiceEntity } from './invoice.entity';

/** v2 shows money as `{amount, currency}` objects; the invoice's `currency` stays (API.md §3). */
export function toInvoiceV2(i: InvoiceEntity): InvoiceV2Dto {
  const money = (minor: string): MoneyDto => ({
    amount: formatMoney(minor, i.totalScale),
    currency: i.currency,
  });
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
      unitPrice: money(l.unitPriceMinor),
      lineTotal: money(l.lineTotalMinor),
    })),
    total: money(i.totalMinor),
    amountDue: money(amountDueMinor(i.status, i.totalMinor)),
    dueDate: i.dueDate,
    issuedAt: i.issuedAt,
    paidAt: i.paidAt,
    notes: i.notes,
    version: i.version,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}
