import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { InvoiceEntity } from './invoice.entity';

/** One line of an invoice: the order's line as it was invoiced. */
@Entity('invoice_lines')
export class InvoiceLineEntity {
  @PrimaryColumn('uuid') invoiceId: string;
  /** 1-based, the order line's position */
  @PrimaryColumn('smallint') lineNo: number;
  @Column('varchar') sku: string;
  @Column('uuid') productId: string;
  @Column('varchar') name: string;
  @Column('integer') quantity: number;
  /** minor units of the invoice's currency; bigint arrives from pg as a string */
  @Column('bigint') unitPriceMinor: string;
  @Column('bigint') lineTotalMinor: string;
  @ManyToOne(() => InvoiceEntity, (invoice) => invoice.lines)
  @JoinColumn({ name: 'invoice_id' })
  invoice?: Relation<InvoiceEntity>;
}
