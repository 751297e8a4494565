/** Texts both versions' invoice operations share. */
export const CREATE_INVOICE_SUMMARY =
  'Invoice an order (confirmed, shipped or delivered): a draft with its lines, total and the next number';
export const CREATE_INVOICE_DESCRIPTION =
  'An `orderId` that names no order is 422 `validation_failed` on `orderId`; an order in another ' +
  'status, or one that already has an invoice that is not void, is 409 `conflict`.';
