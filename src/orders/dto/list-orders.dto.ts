import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Length, Matches } from 'class-validator';
import { CursorListQueryDto, OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { ORDER_STATUSES, type OrderStatus } from '../order-status';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const RFC3339_MESSAGE = 'must be an RFC 3339 date-time, e.g. 2026-11-21T10:00:00Z';

/** Filters of the orders collection (API.md §4). */
export class OrderFiltersDto {
  @IsOptional()
  @IsString()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;

  /** Orders of this customer only (a customer always sees only its own). */
  @IsOptional()
  @IsString()
  @Length(1, 64)
  customerId?: string;

  /** Orders created at or after this instant (RFC 3339). */
  @IsOptional()
  @IsString()
  @Matches(RFC3339, { message: RFC3339_MESSAGE })
  @IsISO8601({ strict: true }, { message: RFC3339_MESSAGE })
  createdFrom?: string;

  /** Orders created before this instant (RFC 3339, exclusive). */
  @IsOptional()
  @IsString()
  @Matches(RFC3339, { message: RFC3339_MESSAGE })
  @IsISO8601({ strict: true }, { message: RFC3339_MESSAGE })
  createdTo?: string;
}

export class ListOrdersV1Dto extends IntersectionType(OffsetListQueryDto, OrderFiltersDto) {}
export class ListOrdersV2Dto extends IntersectionType(CursorListQueryDto, OrderFiltersDto) {}
