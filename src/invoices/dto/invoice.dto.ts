import { ApiProperty } from '@nestjs/swagger';
import { FULL_DATE } from '../../common/dto/date-time';
import {
  CURRENCY_PATTERN,
  MoneyTotalDto,
  TOTAL_MAX_LENGTH,
  TOTAL_PATTERN,
} from '../../common/dto/money.dto';
import { ApiVersionProperty } from '../../http/routing/openapi.decorators';
import { MAX_ORDER_LINES } from '../../orders/dto/order-write.dto';
import { OrderLineV1Dto, OrderLineV2Dto } from '../../orders/dto/order.dto';
import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice-status';
import { MAX_NOTES_LENGTH } from './invoice-write.dto';

// Answers have no validators to document their bounds from: the @ApiProperty options
// state what the write DTOs and the database enforce (doc only).

export const INVOICE_NUMBER_PATTERN = /^INV-\d{4}-\d{6,}$/;

/** Fields of an invoice every version shows. */
export class InvoiceBaseDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  /**
   * Unique, sequential per calendar year (UTC) of creation, without gaps.
   * @example "INV-2026-000001"
   */
  @ApiProperty({ maxLength: 32, pattern: INVOICE_NUMBER_PATTERN.source })
  number: string;
  /** The invoiced order. */
  @ApiProperty({ format: 'uuid' })
  orderId: string;
  /**
   * The order's customer.
   * @example "cus_8a41f2"
   */
  @ApiProperty({ minLength: 1, maxLength: 64 })
  customerId: string;
  @ApiProperty({ enum: INVOICE_STATUSES, example: 'open' })
  status: InvoiceStatus;
  /**
   * The currency of every amount of the invoice (v2 repeats it in each money object).
   * @example "EUR"
   */
  @ApiProperty({ maxLength: 3, pattern: CURRENCY_PATTERN.source })
  currency: string;
  /**
   * When payment is due (a date).
   * @example "2026-12-21"
   */
  @ApiProperty({ format: 'date', maxLength: 10, pattern: FULL_DATE.source })
  dueDate: string;
  /** When the invoice was opened (issued); null while it is a draft. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  issuedAt: Date | null;
  /** When it was marked paid; null until then. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  paidAt: Date | null;
  @ApiProperty({ type: 'string', nullable: true, maxLength: MAX_NOTES_LENGTH })
  notes: string | null;
  /** Grows by one with every change; the ETag is this number. */
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** An invoice as /api/v1 shows it. */
export class InvoiceV1Dto extends InvoiceBaseDto {
  /** The order's lines, as invoiced. */
  @ApiProperty({ type: [OrderLineV1Dto], minItems: 1, maxItems: MAX_ORDER_LINES })
  lines: OrderLineV1Dto[];
  /**
   * The sum of the line totals.
   * @example "39.98"
   */
  @ApiProperty({ maxLength: TOTAL_MAX_LENGTH, pattern: TOTAL_PATTERN.source })
  total: string;
  /**
   * What is still to be paid: the total while draft or open, zero once paid or void.
   * @example "39.98"
   */
  @ApiProperty({ maxLength: TOTAL_MAX_LENGTH, pattern: TOTAL_PATTERN.source })
  amountDue: string;
}

/** An invoice as /api/v2 shows it. */
export class InvoiceV2Dto extends InvoiceBaseDto {
  /** The order's lines, as invoiced. */
  @ApiProperty({ type: [OrderLineV2Dto], minItems: 1, maxItems: MAX_ORDER_LINES })
  lines: OrderLineV2Dto[];
  /** The sum of the line totals. */
  total: MoneyTotalDto;
  /** What is still to be paid: the total while draft or open, zero once paid or void. */
  amountDue: MoneyTotalDto;
}
