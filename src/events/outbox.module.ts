import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventEntity } from './event.entity';
import { EventsRepository } from './events.repository';
import { Outbox } from './outbox';

/**
 * Global, so any module's use case can record its events in its own transaction; the
 * events' repository is here too, as the Outbox writes through it.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([EventEntity])],
  providers: [Outbox, EventsRepository],
  exports: [Outbox, EventsRepository],
})
export class OutboxModule {}
