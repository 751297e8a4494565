import type { InvoiceCreateDto, InvoicePatchDto } from './dto/invoice-write.dto';

/** A new invoice as a client describes it (the same in every API version). */
export interface InvoiceInput {
  orderId: string;
  /** `YYYY-MM-DD`; the default is set at creation */
  dueDate?: string;
  notes: string | null;
}

/** PATCH /invoices/{id}: only the fields sent. */
export interface InvoicePatch {
  dueDate?: string;
  notes?: string | null;
}

export function invoiceInputFrom(dto: InvoiceCreateDto): InvoiceInput {
  return {
    orderId: dto.orderId,
    notes: dto.notes ?? null,
    ...(dto.dueDate !== undefined ? { dueDate: dto.dueDate } : {}),
  };
}

export function invoicePatchFrom(dto: InvoicePatchDto): InvoicePatch {
  return {
    ...(dto.dueDate !== undefined ? { dueDate: dto.dueDate } : {}),
    ...(dto.notes !== undefined ? { notes: dto.notes } : {}),
  };
}
