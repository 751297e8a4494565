import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { PreparedStatement } from '../database/prepared-statement';
import { EventEntity } from './event.entity';
import { EVENT_TYPES, EventType } from './event-types';

// A plain INSERT: every write use case records an event, and TypeORM's insert builder
// cost more CPU than the statement.
const INSERT_EVENT = new PreparedStatement(
  `INSERT INTO events (id, type, resource_type, resource_id, payload)
   VALUES ($1, $2, $3, $4, $5) RETURNING created_at`,
);

/**
 * The transactional outbox (API.md §10, DESIGN.md §4): a use case records its event with
 * the manager of its own transaction, so a committed change always has its event and a
 * rolled-back one never does. Delivery reads the table later.
 */
@Injectable()
export class Outbox {
  async record<T extends { id: string }>(
    manager: EntityManager,
    type: EventType,
    object: T,
  ): Promise<EventEntity> {
    const event = manager.create(EventEntity, {
      id: uuidv7(),
      type,
      resourceType: EVENT_TYPES[type],
      resourceId: object.id,
      // Through JSON so the stored payload is exactly what the API would have sent.
      payload: JSON.parse(JSON.stringify(object)) as object,
    });
    const [row] = await INSERT_EVENT.run<{ created_at: Date }[]>(manager, [
      event.id,
      event.type,
      event.resourceType,
      event.resourceId,
      event.payload,
    ]);
    event.createdAt = row.created_at;
    return event;
  }
}
