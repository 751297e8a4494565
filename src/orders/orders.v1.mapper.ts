import { formatMoney } from '../common/money';
import type { OrderV1Dto } from './dto/order.dto';
import type { OrderEntity } from './order.entity';

export function toOrderV1(o: OrderEntity): OrderV1Dto {
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
      unitPrice: formatMoney(l.unitPriceMinor, o.totalScale),
      lineTotal: formatMoney(l.lineTotalMinor, o.totalScale),
    })),
    total: formatMoney(o.totalMinor, o.totalScale),
    shippingAddress: o.shippingAddress,
    notes: o.notes,
    version: o.version,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}
