import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventEntity } from './event.entity';
import { Outbox } from './outbox';

/** Global, so any module's use case can record its events in its own transaction. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([EventEntity])],
  providers: [Outbox],
  exports: [Outbox],
})
export class OutboxModule {}
