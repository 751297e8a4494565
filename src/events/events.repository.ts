import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { CollectionSpec } from '../http/pagination/collection-spec';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { Page } from '../http/pagination/page';
import { paginate, PageRequest } from '../http/pagination/paginate';
import { EventEntity } from './event.entity';
import type { EventType } from './event-types';

export interface EventFilters {
  type?: EventType;
  /** RFC 3339, inclusive */
  createdFrom?: string;
}

const ID = { column: 'e.id', property: 'id', kind: 'string' } as const;

export const EVENTS: CollectionSpec = {
  name: 'events',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    createdAt: { column: 'e.created_at', property: 'createdAt', kind: 'date' },
  },
};

/** Reads of the outbox for the /events feed (events_created_at_id_idx, ..._type_...). */
@Injectable()
export class EventsRepository {
  constructor(
    @InjectRepository(EventEntity) private readonly events: Repository<EventEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  list(filters: EventFilters, page: PageRequest): Promise<Page<EventEntity>> {
    const qb = this.events.createQueryBuilder('e');
    if (filters.type !== undefined) qb.andWhere('e.type = :type', filters);
    if (filters.createdFrom !== undefined) qb.andWhere('e.created_at >= :createdFrom', filters);
    return paginate(qb, EVENTS, page, this.cursors);
  }

  findById(id: string): Promise<EventEntity | null> {
    return this.events.findOneBy({ id });
  }
}
