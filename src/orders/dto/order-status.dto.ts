import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUSES, type OrderStatus } from '../order-status';
import { MAX_SHIPMENTS_PER_ORDER } from '../../shipments/shipment-problems';

/** One status change; creation is the first, from null to `pending`. */
export class OrderStatusChangeDto {
  @ApiProperty({ enum: ORDER_STATUSES, nullable: true, example: 'pending' })
  from: OrderStatus | null;
  @ApiProperty({ enum: ORDER_STATUSES, example: 'confirmed' })
  to: OrderStatus;
  at: Date;
  /**
   * Who made the change: `api_key:<id>` or a token subject.
   * @example "api_key:0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11"
   */
  @ApiProperty({ minLength: 1, maxLength: 200 })
  actor: string;
}

/**
 * The longest history: created, confirmed, each shipment's shipped and back to
 * confirmed, then shipped and delivered.
 */
const MAX_HISTORY = 2 + 2 * MAX_SHIPMENTS_PER_ORDER + 2;

/** GET /orders/{id}/status: where the order is and how it got there, oldest first. */
export class OrderStatusDto {
  @ApiProperty({ enum: ORDER_STATUSES, example: 'confirmed' })
  status: OrderStatus;
  /**
   * Creation and every change since. Cancelling a shipment returns its order from shipped
   * to confirmed, and an order has at most 10 shipments; after ten cancelled ones the order
   * can still be marked shipped, then delivered: at most 24 entries.
   */
  @ApiProperty({ type: [OrderStatusChangeDto], minItems: 1, maxItems: MAX_HISTORY })
  history: OrderStatusChangeDto[];
}
