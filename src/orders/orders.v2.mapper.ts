import { formatMoney } from '../common/money';
import type { MoneyDto } from '../common/dto/money.dto';
import type { OrderV2Dto } from './dto/order.dto';
import type { OrderEntity } from './order.entity';

/** v2 shows money as `{amount, currency}` objects; the order's `currency` stays (API.md §3). */
export function toOrderV2(o: OrderEntity): OrderV2Dto {
  const money = (minor: string): MoneyDto => ({
    amount: formatMoney(minor, o.totalScale),
    currency: o.currency,
  });
  return {
    id: o.id,
    customerId: o.customerId,
    status: o.status,
    currency: o.currency,
    lines: o.lines.map((l) => ({
      sku: l.sku,
      productId: l.productId,
      name: l.name,
      quantity: l.quantity,
      unitPrice: money(l.unitPriceMinor),
      lineTotal: money(l.lineTotalMinor),
    })),
    total: money(o.totalMinor),
    shippingAddress: o.shippingAddress,
    notes: o.notes,
    version: o.version,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}
