import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../auth/principal';
import type { StatusWithHistory } from '../common/status-history';
import { CommitHook, inTransaction } from '../database/transaction';
import { Outbox } from '../events/outbox';
import { NotFoundProblem } from '../http/problems/problem';
import { Page } from '../http/pagination/page';
import type { PageRequest } from '../http/pagination/paginate';
import { UnknownOrderReferenceProblem } from '../orders/order-problems';
import { OrdersService } from '../orders/orders.service';
import type { InvoiceInput, InvoicePatch } from './invoice-input';
import {
  DueDateTooEarlyProblem,
  INVOICEABLE_ORDER_STATUSES,
  InvoiceNotEditableProblem,
  OrderAlreadyInvoicedProblem,
  OrderNotInvoiceableProblem,
} from './invoice-problems';
import {
  INVOICE_LIFE,
  isInvoiceEditable,
  type InvoiceEffect,
  type InvoiceStatus,
} from './invoice-status';
import type { InvoiceEntity } from './invoice.entity';
import { InvoiceFilters, InvoicesRepository } from './invoices.repository';
import { toInvoiceV1 } from './invoices.mapper';
import { TRANSACTION_TIME } from '../database/transaction-time';

/** Days from creation to the default due date. */
export const DEFAULT_PAYMENT_TERM_DAYS = 30;

export type InvoiceWithHistory = StatusWithHistory<InvoiceStatus, InvoiceEntity>;

/**
 * Invoice use cases. Creation locks the order, copies its lines and total and takes the
 * year's next number in one transaction; every change records its events in the same
 * transaction. Finance and operations write invoices; customers read their own.
 */
@Injectable()
export class InvoicesService {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly orders: OrdersService,
    private readonly outbox: Outbox,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(
    principal: Principal,
    filters: InvoiceFilters,
    page: PageRequest,
  ): Promise<Page<InvoiceEntity>> {
    return this.invoices.list(principal, filters, page);
  }

  async get(principal: Principal, id: string): Promise<InvoiceEntity> {
    return (await this.invoices.findVisibleTo(principal, id)) ?? notFound(id);
  }

  async statusOf(principal: Principal, id: string): Promise<InvoiceWithHistory> {
    const invoice = await this.get(principal, id);
    return { current: invoice, history: await this.invoices.historyOf(invoice) };
  }

  /**
   * A draft invoice of a confirmed, shipped or delivered order. The order stays locked
   * until commit, so it cannot be cancelled meanwhile nor invoiced twice at once.
   */
  create(
    principal: Principal,
    input: InvoiceInput,
    commitHook?: CommitHook,
  ): Promise<InvoiceEntity> {
    return inTransaction(
      this.dataSource,
      async (manager) => {
        const order = await this.orders.findForUpdate(manager, input.orderId);
        if (!order) throw new UnknownOrderReferenceProblem(input.orderId);
        if (!INVOICEABLE_ORDER_STATUSES.includes(order.status)) {
          throw new OrderNotInvoiceableProblem(order.id, order.status);
        }
        const live = await this.invoices.findLiveForOrder(manager, order.id);
        if (live) throw new OrderAlreadyInvoicedProblem(order.id, live.number);
        // Last of the checks that read: the year's counter row stays locked until commit.
        const { number, today } = await this.invoices.nextNumber(manager);
        const dueDate = input.dueDate ?? addDays(today, DEFAULT_PAYMENT_TERM_DAYS);
        if (dueDate < today) throw new DueDateTooEarlyProblem(today);
        const id = uuidv7();
        const invoice = await this.invoices.insert(
          manager,
          {
            id,
            number,
            orderId: order.id,
            customerId: order.customerId,
            status: 'draft',
            currency: order.currency,
            totalMinor: order.totalMinor,
            totalScale: order.totalScale,
            dueDate,
            notes: input.notes,
          },
          order.lines.map((l) => ({
            invoiceId: id,
            lineNo: l.lineNo,
            sku: l.sku,
            productId: l.productId,
            name: l.name,
            quantity: l.quantity,
            unitPriceMinor: l.unitPriceMinor,
            lineTotalMinor: l.lineTotalMinor,
          })),
          principal.subject,
        );
        await this.outbox.record(manager, 'invoice.created', toInvoiceV1(invoice));
        return invoice;
      },
      commitHook,
    );
  }

  /** PATCH: dueDate and notes, only while the invoice is draft or open. */
  update(id: string, patch: InvoicePatch, expectedVersions?: number[]): Promise<InvoiceEntity> {
    return inTransaction(this.dataSource, async (manager) => {
      const updated = await this.invoices.update(manager, id, expectedVersions, (current) => {
        if (!isInvoiceEditable(current.status)) {
          throw new InvoiceNotEditableProblem(current.status);
        }
        const earliest = current.createdAt.toISOString().slice(0, 10);
        if (patch.dueDate !== undefined && patch.dueDate < earliest) {
          throw new DueDateTooEarlyProblem(earliest);
        }
        return {
          ...(patch.dueDate !== undefined ? { dueDate: patch.dueDate } : {}),
          ...(patch.notes !== undefined ? { notes: patch.notes } : {}),
        };
      });
      if (!updated) return notFound(id);
      // A PATCH that changes nothing keeps the version and tells no one.
      if (updated.changed) {
        await this.outbox.record(manager, 'invoice.updated', toInvoiceV1(updated.current));
      }
      return updated.current;
    });
  }

  async changeStatus(
    principal: Principal,
    id: string,
    to: InvoiceStatus,
    expectedVersions?: number[],
  ): Promise<InvoiceWithHistory> {
    const invoice = await inTransaction(this.dataSource, (manager) =>
      this.moveStatus(manager, id, to, principal.subject, expectedVersions),
    );
    return { current: invoice, history: await this.invoices.historyOf(invoice) };
  }

  /**
   * Moves an invoice to `to` under its row lock: the transition checked against the one
   * table, its timestamp stamped, history appended, the version bumped, invoice.updated
   * (and invoice.paid when paid) recorded; or nothing happens at all.
   */
  private async moveStatus(
    manager: EntityManager,
    id: string,
    to: InvoiceStatus,
    actor: string,
    expectedVersions?: number[],
  ): Promise<InvoiceEntity> {
    const moved = await this.invoices.update(manager, id, expectedVersions, async (current) => {
      const effect = INVOICE_LIFE.move(current.status, to);
      await this.invoices.appendHistory(manager, {
        invoiceId: id,
        invoiceVersion: current.version + 1,
        fromStatus: current.status,
        toStatus: to,
        actor,
      });
      return { status: to, ...stampsOf(effect) };
    });
    if (!moved) return notFound(id);
    const object = toInvoiceV1(moved.current);
    await this.outbox.record(manager, 'invoice.updated', object);
    if (to === 'paid') await this.outbox.record(manager, 'invoice.paid', object);
    return moved.current;
  }
}

/** The timestamps a transition sets besides the status. */
function stampsOf(effect: InvoiceEffect): Partial<InvoiceEntity> {
  switch (effect) {
    case 'issue':
      return { issuedAt: TRANSACTION_TIME };
    case 'pay':
      return { paidAt: TRANSACTION_TIME };
    case 'void':
      return {};
  }
}

/** `YYYY-MM-DD` plus `days`, in the proleptic Gregorian calendar. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function notFound(id: string): never {
  throw new NotFoundProblem('invoice', id);
}
