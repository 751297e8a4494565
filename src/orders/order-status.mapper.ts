import type { OrderStatusDto } from './dto/order-status.dto';
import type { OrderWithHistory } from './orders.service';

/** The status resource looks the same in every API version (it holds no money). */
export function toOrderStatus({ order, history }: OrderWithHistory): OrderStatusDto {
  return {
    status: order.status,
    history: history.map((h) => ({
      from: h.fromStatus,
      to: h.toStatus,
      at: h.at,
      actor: h.actor,
    })),
  };
}
