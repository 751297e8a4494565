import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Repository } from 'typeorm';
import { PreparedStatement } from '../database/prepared-statement';
import type { CollectionSpec } from '../http/pagination/collection-spec';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { Page } from '../http/pagination/page';
import { paginate, PageRequest } from '../http/pagination/paginate';
import { EventEntity } from './event.entity';
import type { EventType } from './event-types';
import { rfc3339InUtc } from '../common/dto/date-time';

/** An event as the outbox writes it: its payload already JSON text. */
export interface NewEvent extends Pick<EventEntity, 'id' | 'type' | 'resourceType' | 'resourceId'> {
  payload: string;
}

export interface EventFilters {
  type?: EventType;
  /** RFC 3339, inclusive */
  createdFrom?: string;
}

const ID = { column: 'e.id', property: 'id', kind: 'string' } as const;

export const EVENTS: CollectionSpec = {
  name: 'events',
  counted: 'events',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    createdAt: { column: 'e.created_at', property: 'createdAt', kind: 'date' },
  },
};

// A plain INSERT: every write use case records an event, and TypeORM's insert builder
// cost more CPU than the statement.
const INSERT_EVENT = new PreparedStatement(
  `INSERT INTO events (id, type, resource_type, resource_id, payload)
   VALUES ($1, $2, $3, $4, $5)`,
);

/**
 * All SQL about the outbox table: the Outbox's insert, inside the use case's transaction,
 * and the reads of the /events feed (events_created_at_id_idx, ..._type_...).
 */
@Injectable()
export class EventsRepository {
  constructor(
    @InjectRepository(EventEntity) private readonly events: Repository<EventEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  /** Inserts the event with the use case's transaction; its time is the database's. */
  async insert(manager: EntityManager, event: NewEvent): Promise<void> {
    await INSERT_EVENT.run(manager, [
      event.id,
      event.type,
      event.resourceType,
      event.resourceId,
      event.payload,
    ]);
  }

  list(filters: EventFilters, page: PageRequest): Promise<Page<EventEntity>> {
    const qb = this.all();
    if (filters.type !== undefined) qb.andWhere('e.type = :type', filters);
    if (filters.createdFrom !== undefined) {
      qb.andWhere('e.created_at >= :from', { from: rfc3339InUtc(filters.createdFrom) });
    }
    return paginate(qb, EVENTS, page, this.cursors, this.all());
  }

  /** Every event: the list's query before filters narrow it. */
  private all() {
    return this.events.createQueryBuilder('e');
  }

  findById(id: string): Promise<EventEntity | null> {
    return this.events.findOneBy({ id });
  }
}
