import { Column, Entity, PrimaryColumn } from 'typeorm';
import { VersionedEntity } from '../database/versioned.entity';
import type { ShipmentStatus } from './shipment-status';

@Entity('shipments')
export class ShipmentEntity extends VersionedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') orderId: string;
  /** the order's customer, copied so a customer's reads need no join */
  @Column('varchar') customerId: string;
  @Column('varchar') carrier: string;
  @Column('varchar', { nullable: true }) trackingNumber: string | null;
  @Column('varchar') status: ShipmentStatus;
}
