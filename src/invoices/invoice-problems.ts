import type { InvoiceStatus } from './invoice-status';
import { Problem, ValidationProblem } from '../http/problems/problem';
import type { OrderStatus } from '../orders/order-status';

/** Orders in these statuses can be invoiced: what was confirmed is owed. */
export const INVOICEABLE_ORDER_STATUSES: readonly OrderStatus[] = [
  'confirmed',
  'shipped',
  'delivered',
];

/** 409: the order is not (or no longer) in a status that can be invoiced. */
export class OrderNotInvoiceableProblem extends Problem {
  constructor(orderId: string, status: OrderStatus) {
    super(
      'conflict',
      `Order ${orderId} is ${status}; only a confirmed, shipped or delivered order can be invoiced.`,
      [{ field: 'orderId', message: `the order is ${status}` }],
    );
  }
}

/** 409: the order already has an invoice that is not void; void it to invoice again. */
export class OrderAlreadyInvoicedProblem extends Problem {
  constructor(orderId: string, number: string) {
    super(
      'conflict',
      `Order ${orderId} is already invoiced by ${number}; void that invoice to issue another.`,
      [{ field: 'orderId', message: `already invoiced by ${number}` }],
    );
  }
}

/** 409: PATCH of dueDate or notes once the invoice is paid or void. */
export class InvoiceNotEditableProblem extends Problem {
  constructor(status: InvoiceStatus) {
    super(
      'conflict',
      `The invoice is ${status}; dueDate and notes can change only while it is draft or open.`,
    );
  }
}

/** 422: a due date before the day the invoice was created. */
export class DueDateTooEarlyProblem extends ValidationProblem {
  constructor(earliest: string) {
    super([
      {
        field: 'dueDate',
        message: `must not be before ${earliest}, the day the invoice was created (UTC)`,
      },
    ]);
  }
}
