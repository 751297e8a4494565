import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsFullDate } from '../../common/dto/date-time';
import { UUID_MESSAGE, UUID_PATTERN } from '../../common/dto/uuid';
import { IsOmittable } from '../../common/dto/omittable';
import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice-status';
import { IsText } from '../../common/dto/text';

export const MAX_NOTES_LENGTH = 2000;

/** POST body of /invoices (the same in every API version). */
export class InvoiceCreateDto {
  /**
   * The order to invoice; it must be confirmed, shipped or delivered and have no invoice
   * that is not void. An id that names no order is 422.
   * @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11"
   */
  @ApiProperty({ format: 'uuid' })
  @IsString()
  @Matches(UUID_PATTERN, { message: UUID_MESSAGE })
  orderId: string;

  /**
   * When payment is due (a date, UTC). Omitted: 30 days after the day the invoice is
   * created. Never before that day.
   * @example "2026-12-21"
   */
  @ApiProperty({ format: 'date' })
  @IsOmittable()
  @IsFullDate()
  dueDate?: string;

  /** Free text printed on the invoice; omitted or null means none. */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_NOTES_LENGTH)
  @IsText()
  notes?: string | null;
}

/** PATCH body of /invoices/{id}: any subset, accepted while the invoice is draft or open. */
export class InvoicePatchDto {
  /**
   * When payment is due (a date, UTC); never before the day the invoice was created.
   * @example "2027-01-15"
   */
  @ApiProperty({ format: 'date' })
  @IsOmittable()
  @IsFullDate()
  dueDate?: string;

  /** null clears the notes. */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_NOTES_LENGTH)
  @IsText()
  notes?: string | null;
}

/** PATCH body of /invoices/{id}/status. */
export class InvoiceStatusWriteDto {
  /**
   * The status to move to: draft → open → paid; draft or open → void.
   * @example "paid"
   */
  @IsString()
  @IsIn(INVOICE_STATUSES)
  status: InvoiceStatus;
}
