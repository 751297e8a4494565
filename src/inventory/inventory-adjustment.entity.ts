import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One applied relative change of stock, with the level it produced: the stock ledger. */
@Entity('inventory_adjustments')
export class InventoryAdjustmentEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('varchar') sku: string;
  @Column('integer') delta: number;
  @Column('varchar') reason: string;
  /** on hand right after this adjustment */
  @Column('integer') quantityOnHand: number;
  /** reserved at that moment */
  @Column('integer') quantityReserved: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
