import { ApiProperty } from '@nestjs/swagger';
import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice-status';

/** One status change; creation is the first, from null to `draft`. */
export class InvoiceStatusChangeDto {
  @ApiProperty({ enum: INVOICE_STATUSES, nullable: true, example: 'open' })
  from: InvoiceStatus | null;
  @ApiProperty({ enum: INVOICE_STATUSES, example: 'paid' })
  to: InvoiceStatus;
  at: Date;
  /**
   * Who made the change: `api_key:<id>` or a token subject.
   * @example "api_key:0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11"
   */
  @ApiProperty({ minLength: 1, maxLength: 200 })
  actor: string;
}

/** GET /invoices/{id}/status: where the invoice is and how it got there, oldest first. */
export class InvoiceStatusDto {
  @ApiProperty({ enum: INVOICE_STATUSES, example: 'open' })
  status: InvoiceStatus;
  /** Creation and every change since; an invoice changes status at most twice. */
  @ApiProperty({ type: [InvoiceStatusChangeDto], minItems: 1, maxItems: 3 })
  history: InvoiceStatusChangeDto[];
}
