import type { EventEntity } from './event.entity';
import type { EventType } from './event-types';

/**
 * An event as clients see it, in /events and as a webhook body alike (API.md §10):
 * `{id, type, createdAt, data: {object}}`. The object is the stored payload, the
 * resource as /api/v1 showed it when the event happened, also under /api/v2.
 */
export interface EventEnvelope {
  id: string;
  type: EventType;
  createdAt: Date;
  data: { object: object };
}

export function toEventEnvelope(event: EventEntity): EventEnvelope {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    data: { object: event.payload },
  };
}
