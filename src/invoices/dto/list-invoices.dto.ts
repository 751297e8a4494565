import { ApiProperty, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { UUID_MESSAGE, UUID_PATTERN } from '../../common/dto/uuid';
import { CursorListQueryDto, OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice-status';

/** Filters of the invoices collection (API.md §4). */
export class InvoiceFiltersDto {
  @IsOptional()
  @IsString()
  @IsIn(INVOICE_STATUSES)
  status?: InvoiceStatus;

  /** Invoices of this order only. */
  @ApiProperty({ format: 'uuid' })
  @IsOptional()
  @IsString()
  @Matches(UUID_PATTERN, { message: UUID_MESSAGE })
  orderId?: string;
}

export class ListInvoicesV1Dto extends IntersectionType(OffsetListQueryDto, InvoiceFiltersDto) {}
export class ListInvoicesV2Dto extends IntersectionType(CursorListQueryDto, InvoiceFiltersDto) {}
