import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Matches } from 'class-validator';
import { OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { EVENT_TYPES, type EventType } from '../event-types';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const RFC3339_MESSAGE = 'must be an RFC 3339 date-time, e.g. 2026-11-21T10:00:00Z';

/** Filters of the events feed. */
export class EventFiltersDto {
  /** Events of this type only. */
  @IsOptional()
  @IsString()
  @IsIn(Object.keys(EVENT_TYPES))
  type?: EventType;

  /** Events created at or after this instant (RFC 3339). */
  @IsOptional()
  @IsString()
  @Matches(RFC3339, { message: RFC3339_MESSAGE })
  @IsISO8601({ strict: true }, { message: RFC3339_MESSAGE })
  createdFrom?: string;
}

/** One DTO for both versions: /api/v2 refuses `page` globally and its document drops it. */
export class ListEventsDto extends IntersectionType(OffsetListQueryDto, EventFiltersDto) {}
