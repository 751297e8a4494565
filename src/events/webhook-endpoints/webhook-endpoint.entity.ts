import { Column, Entity, PrimaryColumn } from 'typeorm';
import { VersionedEntity } from '../../database/versioned.entity';

/** Why an endpoint stopped receiving: an admin's PATCH, a 410 Gone, or failing too long. */
export const DISABLED_REASONS = ['manual', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** A subscriber: where events of the subscribed types are POSTed, and how they are signed. */
@Entity('webhook_endpoints')
export class WebhookEndpointEntity extends VersionedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('varchar') url: string;
  @Column('varchar', { nullable: true }) description: string | null;
  /** event types, or `*` for every type */
  @Column('varchar', { array: true }) eventTypes: string[];
  @Column('boolean') enabled: boolean;
  /** when it was created or last enabled: it gets the events from then on */
  @Column({ type: 'timestamptz', precision: 3, insert: false }) enabledAt: Date;
  @Column('varchar', { nullable: true }) disabledReason: DisabledReason | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) disabledAt: Date | null;
  /** `whsec_...`; kept readable because every attempt is signed with it */
  @Column('varchar') secret: string;
  /** the secret before the last rotation, still signing until `previousSecretExpiresAt` */
  @Column('varchar', { nullable: true }) previousSecret: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  previousSecretExpiresAt: Date | null;
  /** the first failed attempt since the last successful one */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) failingSince: Date | null;
}
