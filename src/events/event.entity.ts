import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from './event-types';

/** One emitted event; immutable. `payload` is the resource as /api/v1 showed it then. */
@Entity('events')
export class EventEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('varchar') type: EventType;
  @Column('varchar') resourceType: string;
  @Column('varchar') resourceId: string;
  @Column('json') payload: object;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
