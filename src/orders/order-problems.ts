import { Problem, ValidationProblem } from '../http/problems/problem';
import type { ShortLine } from '../inventory/inventory.repository';

/** 409: some lines cannot be reserved; nothing was. `errors` names each short line. */
export class InsufficientStockProblem extends Problem {
  constructor(short: (ShortLine & { index: number })[]) {
    super(
      'insufficient_stock',
      `Not enough stock for ${short.length === 1 ? 'one line' : `${short.length} lines`}; nothing was reserved.`,
      short.map((line) => ({
        field: `lines[${line.index}].quantity`,
        message: `${line.quantity} of ${line.sku} requested, ${line.available} available`,
      })),
    );
  }
}

/** Why a customer gets 403 on the routes that change orders (@StaffOnly). */
export const CUSTOMERS_CANNOT_CHANGE_ORDERS =
  'A customer can place orders and read its own, but not change them; ask the shop to.';

/**
 * 422 for an `orderId` in the body of another resource (invoices, shipments) that names
 * no order: a bad value of a body field, not a missing URL.
 */
export class UnknownOrderReferenceProblem extends ValidationProblem {
  constructor(orderId: string) {
    super([{ field: 'orderId', message: `no order has id ${orderId}` }]);
  }
}
