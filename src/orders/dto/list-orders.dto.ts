import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsRfc3339 } from '../../common/dto/date-time';
import { CursorListQueryDto, OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { ORDER_STATUSES, type OrderStatus } from '../order-status';

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
  @IsRfc3339()
  createdFrom?: string;

  /** Orders created before this instant (RFC 3339, exclusive). */
  @IsOptional()
  @IsRfc3339()
  createdTo?: string;
}

export class ListOrdersV1Dto extends IntersectionType(OffsetListQueryDto, OrderFiltersDto) {}
export class ListOrdersV2Dto extends IntersectionType(CursorListQueryDto, OrderFiltersDto) {}
