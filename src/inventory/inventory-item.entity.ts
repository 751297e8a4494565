import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryColumn,
  UpdateDateColumn,
  VersionColumn,
} from 'typeorm';

@Entity('inventory_items')
export class InventoryItemEntity {
  @PrimaryColumn('varchar') sku: string;
  @Column('uuid') productId: string;
  @Column('integer') quantityOnHand: number;
  @Column('integer') quantityReserved: number;
  @Column('integer') reorderLevel: number;
  @VersionColumn() version: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
  /** set together with its product's */
  @Column('timestamptz', { nullable: true }) archivedAt: Date | null;
}
