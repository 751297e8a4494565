import { ApiProperty, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { OffsetListQueryDto } from '../../../http/pagination/list-query.dto';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../deliveries/webhook-delivery.entity';
import { EVENT_TYPES, type EventType } from '../../event-types';

/** The most attempts a delivery answer lists (the latest). */
export const MAX_LISTED_ATTEMPTS = 100;
const EXCERPT = { type: 'string', nullable: true, maxLength: 1024 } as const;
const STATUS_CODE = { type: 'integer', nullable: true, minimum: 100, maximum: 599 } as const;

/** One POST of a delivery. */
export class WebhookAttemptDto {
  /** 1 for the first attempt. @example 1 */
  @ApiProperty({ minimum: 1, maximum: 2 ** 31 - 1 })
  attempt: number;
  /** When it was sent (for an attempt whose outcome is unknown, when its worker took it on). */
  at: Date;
  /** A 2xx answer. */
  succeeded: boolean;
  /** The receiver's status; null when none came. @example 500 */
  @ApiProperty(STATUS_CODE)
  statusCode: number | null;
  /**
   * Why no status came (connection error, time-out after 10 s, refused address), or that
   * the outcome is unknown: the worker sending it stopped before recording it, and another
   * worker took the delivery over.
   */
  @ApiProperty({ type: 'string', nullable: true, maxLength: 500 })
  error: string | null;
  /** From sending to the answer (or the error); 0 when nothing was measured. @example 87 */
  @ApiProperty({ minimum: 0, maximum: 2 ** 31 - 1 })
  latencyMs: number;
  /** The first KiB of the answer's body. */
  @ApiProperty(EXCERPT)
  responseExcerpt: string | null;
}

/** One event for one endpoint, with every attempt. */
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ format: 'uuid' })
  endpointId: string;
  /** The event delivered; the body's `id` and the `webhook-id` header. */
  @ApiProperty({ format: 'uuid' })
  eventId: string;
  @ApiProperty({ enum: Object.keys(EVENT_TYPES), example: 'order.created' })
  eventType: EventType;
  /**
   * `pending`: due for an attempt (new, or rescheduled by a manual retry, its earlier
   * attempts kept); `failed`: the last attempt failed and another is
   * scheduled at `nextAttemptAt`; `succeeded`; `dead`: no attempt is left (schedule
   * exhausted, receiver gone, or the endpoint disabled).
   */
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'succeeded' })
  status: DeliveryStatus;
  /** @example 1 */
  @ApiProperty({ minimum: 0, maximum: 2 ** 31 - 1 })
  attemptCount: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  nextAttemptAt: Date | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  lastAttemptAt: Date | null;
  @ApiProperty(STATUS_CODE)
  lastStatusCode: number | null;
  @ApiProperty({ type: 'string', nullable: true, maxLength: 500 })
  lastError: string | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, maximum: 2 ** 31 - 1 })
  lastLatencyMs: number | null;
  @ApiProperty(EXCERPT)
  lastResponseExcerpt: string | null;
  /** Oldest first; the latest 100 when there were more. */
  @ApiProperty({ type: [WebhookAttemptDto], maxItems: MAX_LISTED_ATTEMPTS })
  attempts: WebhookAttemptDto[];
  createdAt: Date;
  updatedAt: Date;
}

/** Filters of an endpoint's deliveries. */
export class DeliveryFiltersDto {
  @IsOptional()
  @IsString()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  @IsOptional()
  @IsString()
  @IsIn(Object.keys(EVENT_TYPES))
  eventType?: EventType;
}

export class ListWebhookDeliveriesDto extends IntersectionType(
  OffsetListQueryDto,
  DeliveryFiltersDto,
) {}
