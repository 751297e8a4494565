import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { OrderEntity } from './order.entity';

/** One line of an order: the product as it was when the order was placed. */
@Entity('order_lines')
export class OrderLineEntity {
  @PrimaryColumn('uuid') orderId: string;
  /** 1-based position in the order as the client sent it */
  @PrimaryColumn('smallint') lineNo: number;
  @Column('varchar') sku: string;
  @Column('uuid') productId: string;
  @Column('varchar') name: string;
  @Column('integer') quantity: number;
  /** minor units of the order's currency; bigint arrives from pg as a string */
  @Column('bigint') unitPriceMinor: string;
  @Column('bigint') lineTotalMinor: string;
  @ManyToOne(() => OrderEntity, (order) => order.lines)
  @JoinColumn({ name: 'order_id' })
  order?: Relation<OrderEntity>;
}
