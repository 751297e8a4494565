import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/auth.decorators';
import { ApiPage, ApiResource } from '../http/routing/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/input/resource-id.pipe';
import { EventDto } from './dto/event.dto';
import { ListEventsDto } from './dto/list-events.dto';
import { toEventEnvelope } from './event-envelope';
import { EventsService } from './events.service';
import { EVENTS } from './events.repository';

const OBJECT_NOTE =
  '`data.object` is the resource as /api/v1 showed it when the event happened, under /api/v2 too (events are stored once, in the v1 representation).';

/**
 * The events feed (API.md §3): every event ever emitted, with the ids webhooks carry,
 * for clients that reconcile after missed deliveries. No money of its own is shown, so
 * one controller serves v1 and v2.
 */
@ApiTags('events')
@Controller({ path: 'events', version: ['1', '2'] })
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequirePermission('events:read')
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'List events, newest first',
    description: `${OBJECT_NOTE} To catch up after an outage, list with \`sort=createdAt\` and \`createdFrom\` a few minutes before the last event you handled, and drop the ids you have seen.`,
  })
  @ApiPage(EventDto, () => EVENTS)
  async list(@Query() query: ListEventsDto): Promise<Page<EventDto>> {
    return (await this.events.list(query, query)).map(toEventEnvelope);
  }

  @Get(':id')
  @RequirePermission('events:read')
  @ApiOperation({ operationId: 'getEvent', summary: 'Get an event', description: OBJECT_NOTE })
  @ApiResource(EventDto, 'The event.')
  async get(@ResourceId('event') id: string): Promise<EventDto> {
    return toEventEnvelope(await this.events.get(id));
  }
}
