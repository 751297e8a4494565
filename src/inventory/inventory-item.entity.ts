import { Column, Entity, PrimaryColumn } from 'typeorm';
import { VersionedEntity } from '../database/versioned.entity';

@Entity('inventory_items')
export class InventoryItemEntity extends VersionedEntity {
  @PrimaryColumn('varchar') sku: string;
  @Column('uuid') productId: string;
  @Column('integer') quantityOnHand: number;
  @Column('integer') quantityReserved: number;
  @Column('integer') reorderLevel: number;
  /** set together with its product's */
  @Column('timestamptz', { nullable: true }) archivedAt: Date | null;
}
