import { Injectable } from '@nestjs/common';
import { NotFoundProblem } from '../http/problems/problem';
import { Page } from '../http/pagination/page';
import type { PageRequest } from '../http/pagination/paginate';
import type { EventEntity } from './event.entity';
import { EventFilters, EventsRepository } from './events.repository';

/** The events feed: read-only, for admins reconciling after missed webhooks. */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  list(filters: EventFilters, page: PageRequest): Promise<Page<EventEntity>> {
    return this.events.list(filters, page);
  }

  async get(id: string): Promise<EventEntity> {
    const event = await this.events.findById(id);
    if (!event) throw new NotFoundProblem('event', id);
    return event;
  }
}
