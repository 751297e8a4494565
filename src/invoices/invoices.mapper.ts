import { MONEY_V1, MONEY_V2, type MoneyView } from '../common/money-view';
import { lineView } from '../orders/orders.mapper';
import type { InvoiceV1Dto, InvoiceV2Dto } from './dto/invoice.dto';
import { amountDueMinor } from './invoice-status';
import type { InvoiceEntity } from './invoice.entity';

/** The invoice in either version; its `currency` stays in v2 as well (API.md §3). */
function toInvoice<M>(i: InvoiceEntity, view: MoneyView<M>) {
  const money = (minor: string) => view(minor, i.totalScale, i.currency);
  return {
    id: i.id,
    number: i.number,
    orderId: i.orderId,
    customerId: i.customerId,
    status: i.status,
    currency: i.currency,
    lines: i.lines.map((l) => lineView(l, money)),
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

export const toInvoiceV1 = (i: InvoiceEntity): InvoiceV1Dto => toInvoice(i, MONEY_V1);

export const toInvoiceV2 = (i: InvoiceEntity): InvoiceV2Dto => toInvoice(i, MONEY_V2);
