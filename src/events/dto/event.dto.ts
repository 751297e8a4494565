import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES, type EventType } from '../event-types';

/** What happened to: the resource the event reports. */
export class EventDataDto {
  /**
   * The resource as `/api/v1` showed it right after the change (money as a `price` or
   * `total` string with its `currency`), in /api/v2 too; its `version` orders the events
   * of one resource (two events of one change, `invoice.updated` and `invoice.paid`,
   * carry the same version).
   */
  // The OpenAPI documents narrow this to the v1 schema of each resource (docs/openapi/webhooks.ts).
  @ApiProperty({ type: 'object', additionalProperties: true })
  object: object;
}

/** An emitted event, as /events lists it and as webhooks deliver it. */
export class EventDto {
  /**
   * The event's id; webhooks send it as `webhook-id`, the key to drop duplicates by.
   * @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11"
   */
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ enum: Object.keys(EVENT_TYPES), example: 'order.created' })
  type: EventType;
  /** When the change was made. */
  createdAt: Date;
  data: EventDataDto;
}
