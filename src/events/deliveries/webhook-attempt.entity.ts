import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** One POST of a delivery and what came back; written once. */
@Entity('webhook_attempts')
export class WebhookAttemptEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') deliveryId: string;
  @Column('integer') attemptNo: number;
  @Column({ type: 'timestamptz', precision: 3 }) at: Date;
  @Column('boolean') succeeded: boolean;
  @Column('smallint', { nullable: true }) statusCode: number | null;
  @Column('varchar', { nullable: true }) error: string | null;
  @Column('integer') latencyMs: number;
  @Column('varchar', { nullable: true }) responseExcerpt: string | null;

  @ManyToOne(() => WebhookDeliveryEntity, (delivery) => delivery.attempts)
  @JoinColumn({ name: 'delivery_id' })
  delivery?: Relation<WebhookDeliveryEntity>;
}
