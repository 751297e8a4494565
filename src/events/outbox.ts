import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { atCommit } from '../database/pipeline';
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

  /** Records the event in the caller's transaction; returns its id. */
  async record<T extends { id: string }>(
    manager: EntityManager,
    type: EventType,
    object: T,
  ): Promise<string> {
    const id = uuidv7();
    const event = {
      id,
      type,
      resourceType: EVENT_TYPES[type],
      resourceId: object.id,
      // Serialized once, here: the stored payload is the JSON text the API would have
      // sent, which the column keeps as it is given (json, not jsonb).
      payload: JSON.stringify(object),
    };
    // Nothing in the transaction reads it back: it goes out with the COMMIT (pipeline.ts).
    await atCommit(manager, () => this.events.insert(manager, event));
    return id;
  }
}
