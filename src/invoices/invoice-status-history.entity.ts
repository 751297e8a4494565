import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { InvoiceStatus } from './invoice-status';

/** One status change of an invoice, creation included (from null to draft). */
@Entity('invoice_status_history')
export class InvoiceStatusHistoryEntity {
  @PrimaryColumn('uuid') invoiceId: string;
  /** the invoice's version this change produced */
  @PrimaryColumn('integer') invoiceVersion: number;
  @Column('varchar', { nullable: true }) fromStatus: InvoiceStatus | null;
  @Column('varchar') toStatus: InvoiceStatus;
  @Column({ type: 'timestamptz', precision: 3 }) at: Date;
  /** the principal's subject (`api_key:<id>` or a token subject) */
  @Column('varchar') actor: string;
}
