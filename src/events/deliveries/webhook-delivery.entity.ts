import {
  Column,
  CreateDateColumn,
  Entity,
  OneToMany,
  PrimaryColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import { WebhookAttemptEntity } from './webhook-attempt.entity';

/**
 * `pending`: not tried yet (or retried by hand); `failed`: the last attempt failed and
 * another is scheduled; `succeeded`; `dead`: the schedule is exhausted, or the endpoint
 * was disabled first.
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event for one endpoint, with the state of its attempts. */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') endpointId: string;
  @Column('uuid') eventId: string;
  @Column('varchar') eventType: string;
  @Column('varchar') status: DeliveryStatus;
  @Column('integer') attemptCount: number;
  /** attempts made before the current retry schedule began */
  @Column('integer') scheduleStart: number;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) nextAttemptAt: Date | null;
  /** a worker's lease: nobody else sends this delivery until then */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lockedUntil: Date | null;
  @Column('uuid', { nullable: true }) leaseToken: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastAttemptAt: Date | null;
  @Column('smallint', { nullable: true }) lastStatusCode: number | null;
  @Column('varchar', { nullable: true }) lastError: string | null;
  @Column('integer', { nullable: true }) lastLatencyMs: number | null;
  @Column('varchar', { nullable: true }) lastResponseExcerpt: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;

  @OneToMany(() => WebhookAttemptEntity, (attempt) => attempt.delivery)
  attempts: Relation<WebhookAttemptEntity>[];
}
