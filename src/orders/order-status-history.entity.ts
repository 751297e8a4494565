import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OrderStatus } from './order-status';

/** One status change of an order, creation included (from null to pending). */
@Entity('order_status_history')
export class OrderStatusHistoryEntity {
  @PrimaryColumn('uuid') orderId: string;
  /** the order's version this change produced */
  @PrimaryColumn('integer') orderVersion: number;
  @Column('varchar', { nullable: true }) fromStatus: OrderStatus | null;
  @Column('varchar') toStatus: OrderStatus;
  @Column({ type: 'timestamptz', precision: 3 }) at: Date;
  /** the principal's subject (`api_key:<id>` or a token subject) */
  @Column('varchar') actor: string;
}
