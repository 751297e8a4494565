import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThanOrEqual, Repository } from 'typeorm';
import { ownedBy } from '../auth/ownership';
import { attachChildren } from '../database/attach-children';
import type { Principal } from '../auth/principal';
import { type Updated, updateWithLock } from '../database/update-with-lock';
import type { CollectionSpec } from '../http/pagination/collection-spec';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { Page } from '../http/pagination/page';
import { paginate, PageRequest } from '../http/pagination/paginate';
import { InvoiceLineEntity } from './invoice-line.entity';
import { InvoiceStatusHistoryEntity } from './invoice-status-history.entity';
import type { InvoiceStatus } from './invoice-status';
import { InvoiceEntity } from './invoice.entity';

export interface InvoiceFilters {
  status?: InvoiceStatus;
  orderId?: string;
}

export interface InvoiceStatusChange {
  invoiceId: string;
  invoiceVersion: number;
  fromStatus: InvoiceStatus | null;
  toStatus: InvoiceStatus;
  actor: string;
}

/** The next number of the current year, and that day (UTC) by the database's clock. */
export interface NextNumber {
  number: string;
  /** `YYYY-MM-DD`, the day the creating transaction started (UTC) */
  today: string;
}

const ID = { column: 'i.id', property: 'id', kind: 'string' } as const;

export const INVOICES: CollectionSpec = {
  name: 'invoices',
  counted: 'invoices',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    createdAt: { column: 'i.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 'i.updated_at', property: 'updatedAt', kind: 'date' },
    number: { column: 'i.number', property: 'number', kind: 'string' },
    // a `date` column: compared with the cursor's `YYYY-MM-DD` string as a date
    dueDate: { column: 'i.due_date', property: 'dueDate', kind: 'string' },
    total: { column: 'i.total', property: 'total', kind: 'decimal' },
  },
};

/** `INV-2026-000001`: the year of creation and the counter, at least six digits. */
export const formatInvoiceNumber = (year: number, sequence: number): string =>
  `INV-${year}-${String(sequence).padStart(6, '0')}`;

/**
 * All SQL about invoices, their lines, status history and per-year number counters. Reads
 * take the caller: a customer's queries are scoped to its own invoices.
 */
@Injectable()
export class InvoicesRepository {
  constructor(
    @InjectRepository(InvoiceEntity) private readonly invoices: Repository<InvoiceEntity>,
    @InjectRepository(InvoiceStatusHistoryEntity)
    private readonly history: Repository<InvoiceStatusHistoryEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  /** One invoice with its lines; null when it does not exist for `principal`. */
  findVisibleTo(principal: Principal, id: string): Promise<InvoiceEntity | null> {
    return ownedBy(principal, this.invoices.createQueryBuilder('i'), 'i.customer_id')
      .leftJoinAndSelect('i.lines', 'l')
      .andWhere('i.id = :id', { id })
      .orderBy('l.line_no')
      .getOne();
  }

  async list(
    principal: Principal,
    filters: InvoiceFilters,
    page: PageRequest,
  ): Promise<Page<InvoiceEntity>> {
    const qb = ownedBy(principal, this.all(), 'i.customer_id');
    if (filters.status !== undefined) qb.andWhere('i.status = :status', filters);
    if (filters.orderId !== undefined) qb.andWhere('i.order_id = :orderId', filters);
    const result = await paginate(qb, INVOICES, page, this.cursors, this.all());
    await attachLines(this.invoices.manager, result.items);
    return result;
  }

  /** Every invoice: the list's query before filters and ownership narrow it. */
  private all() {
    return this.invoices.createQueryBuilder('i');
  }

  /**
   * Status history of an invoice as of the version read, oldest first. A change committed
   * after that read is left out, so the last entry's `to` is the invoice's `status` and
   * the ETag (the version) names one body.
   */
  historyOf(invoice: Pick<InvoiceEntity, 'id' | 'version'>): Promise<InvoiceStatusHistoryEntity[]> {
    return this.history.find({
      where: { invoiceId: invoice.id, invoiceVersion: LessThanOrEqual(invoice.version) },
      order: { invoiceVersion: 'ASC' },
    });
  }

  /** The order's invoice that is not void, if any (at most one: a unique index says so). */
  findLiveForOrder(manager: EntityManager, orderId: string): Promise<InvoiceEntity | null> {
    return manager
      .createQueryBuilder(InvoiceEntity, 'i')
      .where('i.order_id = :orderId', { orderId })
      .andWhere(`i.status <> 'void'`)
      .getOne();
  }

  /**
   * Takes the next number of the current year (UTC) inside the caller's transaction. The
   * upsert locks that year's counter row until the transaction ends, so concurrent
   * creations queue on it and each gets the next number; a transaction that rolls back
   * gives its number back, so numbers have no gaps.
   */
  async nextNumber(manager: EntityManager): Promise<NextNumber> {
    const rows: { year: number; last: number; today: string }[] = await manager.query(
      `INSERT INTO invoice_counters AS c (year, last)
            VALUES (extract(year FROM now() AT TIME ZONE 'UTC')::integer, 1)
       ON CONFLICT (year) DO UPDATE SET last = c.last + 1
       RETURNING c.year, c.last, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS today`,
    );
    const { year, last, today } = rows[0];
    return { number: formatInvoiceNumber(year, last), today };
  }

  /** Inserts an invoice, its lines and the first history entry (null → its status). */
  async insert(
    manager: EntityManager,
    invoice: Omit<
      InvoiceEntity,
      'total' | 'version' | 'createdAt' | 'updatedAt' | 'lines' | 'issuedAt' | 'paidAt'
    >,
    lines: Omit<InvoiceLineEntity, 'invoice'>[],
    actor: string,
  ): Promise<InvoiceEntity> {
    await manager.insert(InvoiceEntity, invoice);
    await manager.insert(InvoiceLineEntity, lines);
    await this.appendHistory(manager, {
      invoiceId: invoice.id,
      invoiceVersion: 1,
      fromStatus: null,
      toStatus: invoice.status,
      actor,
    });
    const created = await manager.findOneByOrFail(InvoiceEntity, { id: invoice.id });
    await attachLines(manager, [created]);
    return created;
  }

  /**
   * Locks the invoice, checks If-Match, applies `change` (computed from the locked row),
   * writes it and bumps the version; a change that changes nothing keeps the version. Null
   * when there is no such invoice.
   */
  async update(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
    change: (current: InvoiceEntity) => Partial<InvoiceEntity> | Promise<Partial<InvoiceEntity>>,
  ): Promise<Updated<InvoiceEntity> | null> {
    const updated = await updateWithLock(manager, InvoiceEntity, 'i', {
      keyColumn: 'i.id',
      key: id,
      expectedVersions,
      archivable: false,
      change,
    });
    if (!updated) return null;
    await attachLines(manager, [updated.current]);
    return updated;
  }

  async appendHistory(manager: EntityManager, entry: InvoiceStatusChange): Promise<void> {
    await manager.insert(InvoiceStatusHistoryEntity, entry);
  }
}

/** Loads the lines of invoices with one query (a page of invoices, or one). */
const attachLines = (manager: EntityManager, invoices: InvoiceEntity[]) =>
  attachChildren(
    manager,
    invoices,
    InvoiceLineEntity,
    { parent: 'invoiceId', order: 'lineNo' },
    (parent, lines) => {
      parent.lines = lines;
    },
  );
