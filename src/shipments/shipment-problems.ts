import type { ShipmentStatus } from './shipment-status';
import { Problem } from '../http/problems/problem';
import type { OrderStatus } from '../orders/order-status';

/** Shipments an order may have, cancelled ones included (bounds the order's history). */
export const MAX_SHIPMENTS_PER_ORDER = 10;

/** 409: only a confirmed order can be shipped; nothing was created. */
export class OrderNotShippableProblem extends Problem {
  constructor(orderId: string, status: OrderStatus) {
    super('conflict', `Order ${orderId} is ${status}; only a confirmed order can be shipped.`, [
      { field: 'orderId', message: `the order is ${status}, not confirmed` },
    ]);
  }
}

/** 409: the order has had as many shipments as it may have. */
export class TooManyShipmentsProblem extends Problem {
  constructor(orderId: string) {
    super(
      'conflict',
      `Order ${orderId} already has ${MAX_SHIPMENTS_PER_ORDER} shipments, the most an order may have.`,
      [{ field: 'orderId', message: `has ${MAX_SHIPMENTS_PER_ORDER} shipments already` }],
    );
  }
}

/** 409: a delivered or cancelled shipment keeps its carrier and tracking number. */
export class ShipmentFinalProblem extends Problem {
  constructor(status: ShipmentStatus, fields: string[]) {
    super(
      'conflict',
      `The shipment is ${status}; carrier and trackingNumber can change only until it is delivered or cancelled.`,
      fields.map((field) => ({ field, message: `cannot change once the shipment is ${status}` })),
    );
  }
}

/**
 * 409: cancelling the shipment would return its order to confirmed, but the order has
 * moved on (it was marked delivered through /orders/{id}/status).
 */
export class OrderNotReturnableProblem extends Problem {
  constructor(orderId: string, status: OrderStatus) {
    super(
      'conflict',
      `The shipment cannot be cancelled: its order ${orderId} is ${status}, no longer shipped.`,
      [{ field: 'status', message: `the order is ${status}` }],
    );
  }
}
