import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { EventEntity } from './event.entity';
import { EVENT_TYPES, EventType } from './event-types';
import { EventsRepository } from './events.repository';

/**
 * The transactional outbox (API.md §10, DESIGN.md §4): a use case records its event with
 * the manager of its own transaction, so a committed change always has its event and a
 * rolled-back one never does. Delivery reads the table later.
 */
@Injectable()
export class Outbox {
  constructor(private readonly events: EventsRepository) {}

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
    event.createdAt = await this.events.insert(manager, event);
    return event;
  }
}
