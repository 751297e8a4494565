import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { IsRfc3339 } from '../../common/dto/date-time';
import { OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { EVENT_TYPES, type EventType } from '../event-types';

/** Filters of the events feed. */
export class EventFiltersDto {
  /** Events of this type only. */
  @IsOptional()
  @IsString()
  @IsIn(Object.keys(EVENT_TYPES))
  type?: EventType;

  /** Events created at or after this instant (RFC 3339). */
  @IsOptional()
  @IsRfc3339()
  createdFrom?: string;
}

/** One DTO for both versions: /api/v2 refuses `page` globally and its document drops it. */
export class ListEventsDto extends IntersectionType(OffsetListQueryDto, EventFiltersDto) {}
