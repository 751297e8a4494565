import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUSES, type OrderStatus } from '../order-status';

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

/** GET /orders/{id}/status: where the order is and how it got there, oldest first. */
export class OrderStatusDto {
  @ApiProperty({ enum: ORDER_STATUSES, example: 'confirmed' })
  status: OrderStatus;
  /**
   * Creation and every change since. Cancelling a shipment returns its order from shipped
   * to confirmed, and an order has at most 10 shipments, so there are at most 23 entries.
   */
  @ApiProperty({ type: [OrderStatusChangeDto], minItems: 1, maxItems: 23 })
  history: OrderStatusChangeDto[];
}
