import { MONEY_V1, MONEY_V2, type MoneyView } from '../common/money-view';
import type { OrderV1Dto, OrderV2Dto } from './dto/order.dto';
import type { OrderLineEntity } from './order-line.entity';
import type { OrderEntity } from './order.entity';

/** What an order line and an invoice line (a copy of it) show in every version. */
type PricedLine = Pick<
  OrderLineEntity,
  'sku' | 'productId' | 'name' | 'quantity' | 'unitPriceMinor' | 'lineTotalMinor'
>;

/** A line's answer, its amounts written by `money`. */
export function lineView<M>(line: PricedLine, money: (minor: string) => M) {
  return {
    sku: line.sku,
    productId: line.productId,
    name: line.name,
    quantity: line.quantity,
    unitPrice: money(line.unitPriceMinor),
    lineTotal: money(line.lineTotalMinor),
  };
}

/** The order in either version; the order's `currency` stays in v2 as well (API.md §3). */
function toOrder<M>(o: OrderEntity, view: MoneyView<M>) {
  const money = (minor: string) => view(minor, o.totalScale, o.currency);
  return {
    id: o.id,
    customerId: o.customerId,
    status: o.status,
    currency: o.currency,
    lines: o.lines.map((l) => lineView(l, money)),
    total: money(o.totalMinor),
    shippingAddress: o.shippingAddress,
    notes: o.notes,
    version: o.version,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}

export const toOrderV1 = (o: OrderEntity): OrderV1Dto => toOrder(o, MONEY_V1);

export const toOrderV2 = (o: OrderEntity): OrderV2Dto => toOrder(o, MONEY_V2);
