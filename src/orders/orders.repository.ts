import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThanOrEqual, ObjectLiteral, Repository } from 'typeorm';
import { ownedBy } from '../auth/ownership';
import { attachChildren } from '../database/attach-children';
import type { Principal } from '../auth/principal';
import { columnsAsProperties } from '../database/columns-as-properties';
import { PreparedStatement } from '../database/prepared-statement';
import { type Updated, updateWithLock } from '../database/update-with-lock';
import type { CollectionSpec } from '../http/pagination/collection-spec';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { Page } from '../http/pagination/page';
import { paginate, PageRequest } from '../http/pagination/paginate';
import { OrderLineEntity } from './order-line.entity';
import { OrderStatusHistoryEntity } from './order-status-history.entity';
import type { OrderStatus } from './order-status';
import { OrderEntity } from './order.entity';
import { rfc3339InUtc } from '../common/dto/date-time';

export interface OrderFilters {
  status?: OrderStatus;
  customerId?: string;
  /** RFC 3339, inclusive */
  createdFrom?: string;
  /** RFC 3339, exclusive */
  createdTo?: string;
}

export interface StatusChange {
  orderId: string;
  orderVersion: number;
  fromStatus: OrderStatus | null;
  toStatus: OrderStatus;
  actor: string;
}

const ID = { column: 'o.id', property: 'id', kind: 'string' } as const;

export const ORDERS: CollectionSpec = {
  name: 'orders',
  counted: 'orders',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    createdAt: { column: 'o.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 'o.updated_at', property: 'updatedAt', kind: 'date' },
    total: { column: 'o.total', property: 'total', kind: 'decimal' },
    status: { column: 'o.status', property: 'status', kind: 'string' },
  },
};

/**
 * All SQL about orders, their lines and status history. Reads take the caller: a
 * customer's queries are scoped to its own orders, so another's are simply not found.
 */
@Injectable()
export class OrdersRepository {
  // the statements of order creation, built once (they need the entities' metadata)
  private insertOrder?: PreparedStatement;

  constructor(
    @InjectRepository(OrderEntity) private readonly orders: Repository<OrderEntity>,
    @InjectRepository(OrderStatusHistoryEntity)
    private readonly history: Repository<OrderStatusHistoryEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  /** One order with its lines, in one statement; null when it does not exist for `principal`. */
  findVisibleTo(principal: Principal, id: string): Promise<OrderEntity | null> {
    return ownedBy(principal, this.orders.createQueryBuilder('o'), 'o.customer_id')
      .leftJoinAndSelect('o.lines', 'l')
      .andWhere('o.id = :id', { id })
      .orderBy('l.line_no')
      .getOne();
  }

  /**
   * Locks an order for the rest of the caller's transaction (`FOR UPDATE`) and loads its
   * lines; null when there is no such order. Whoever acts on an order's status (invoices,
   * shipments) reads it this way, so the status cannot change before the transaction ends.
   */
  async findForUpdate(manager: EntityManager, id: string): Promise<OrderEntity | null> {
    const order = await manager
      .createQueryBuilder(OrderEntity, 'o')
      .where('o.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
    if (order) await attachLines(manager, [order]);
    return order;
  }

  async list(
    principal: Principal,
    filters: OrderFilters,
    page: PageRequest,
  ): Promise<Page<OrderEntity>> {
    const qb = ownedBy(principal, this.all(), 'o.customer_id');
    if (filters.status !== undefined) qb.andWhere('o.status = :status', filters);
    if (filters.customerId !== undefined) qb.andWhere('o.customer_id = :customerId', filters);
    if (filters.createdFrom !== undefined) {
      qb.andWhere('o.created_at >= :from', { from: rfc3339InUtc(filters.createdFrom) });
    }
    if (filters.createdTo !== undefined) {
      qb.andWhere('o.created_at < :to', { to: rfc3339InUtc(filters.createdTo) });
    }
    const result = await paginate(qb, ORDERS, page, this.cursors, this.all());
    await attachLines(this.orders.manager, result.items);
    return result;
  }

  /** Every order: the list's query before filters and ownership narrow it. */
  private all() {
    return this.orders.createQueryBuilder('o');
  }

  /**
   * Status history of an order as of the version read, oldest first. A change committed
   * after that read is left out, so the last entry's `to` is the order's `status` and the
   * ETag (the version) names one body.
   */
  historyOf(order: Pick<OrderEntity, 'id' | 'version'>): Promise<OrderStatusHistoryEntity[]> {
    return this.history.find({
      where: { orderId: order.id, orderVersion: LessThanOrEqual(order.version) },
      order: { orderVersion: 'ASC' },
    });
  }

  /**
   * Inserts an order, its lines and the first history entry (null → its status) in one
   * statement. Order creation is the hot write path, and there each round trip to the
   * database costs more than the SQL it carries.
   */
  async insert(
    manager: EntityManager,
    order: Omit<OrderEntity, 'total' | 'version' | 'createdAt' | 'updatedAt' | 'lines'>,
    lines: Omit<OrderLineEntity, 'order'>[],
    actor: string,
  ): Promise<OrderEntity> {
    const column = <K extends keyof (typeof lines)[number]>(key: K) => lines.map((l) => l[key]);
    this.insertOrder ??= new PreparedStatement(
      `WITH created AS (
         INSERT INTO orders (id, customer_id, status, currency, total_minor, total_scale,
                             shipping_address, notes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING ${columnsAsProperties(manager, OrderEntity)}
       ), lines AS (
         INSERT INTO order_lines (order_id, line_no, sku, product_id, name, quantity,
                                  unit_price_minor, line_total_minor)
         SELECT $1, * FROM unnest($9::smallint[], $10::varchar[], $11::uuid[], $12::varchar[],
                                  $13::integer[], $14::bigint[], $15::bigint[])
       ), history AS (
         INSERT INTO order_status_history (order_id, order_version, from_status, to_status, actor)
         VALUES ($1, 1, NULL, $3, $16)
       )
       SELECT * FROM created`,
    );
    const rows = await this.insertOrder.run<ObjectLiteral[]>(manager, [
      order.id,
      order.customerId,
      order.status,
      order.currency,
      order.totalMinor,
      order.totalScale,
      JSON.stringify(order.shippingAddress),
      order.notes ?? null,
      column('lineNo'),
      column('sku'),
      column('productId'),
      column('name'),
      column('quantity'),
      column('unitPriceMinor'),
      column('lineTotalMinor'),
      actor,
    ]);
    const created = manager.create(OrderEntity, rows[0]);
    created.lines = lines.map((line) => manager.create(OrderLineEntity, line));
    return created;
  }

  /**
   * Locks the order, checks If-Match, applies `change` (which sees the order with its
   * lines and may move stock in the same transaction), writes it and bumps the version.
   * Null when there is no such order. Callers that have a customer check ownership first.
   */
  async update(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
    change: (current: OrderEntity) => Partial<OrderEntity> | Promise<Partial<OrderEntity>>,
  ): Promise<Updated<OrderEntity> | null> {
    const updated = await updateWithLock(manager, OrderEntity, 'o', {
      keyColumn: 'o.id',
      key: id,
      expectedVersions,
      archivable: false,
      change: async (current) => {
        await attachLines(manager, [current]);
        return change(current);
      },
    });
    if (!updated) return null;
    await attachLines(manager, [updated.current]);
    return updated;
  }

  async appendHistory(manager: EntityManager, entry: StatusChange): Promise<void> {
    await manager.insert(OrderStatusHistoryEntity, entry);
  }
}

/** Loads the lines of orders with one query (a page of orders, or one). */
const attachLines = (manager: EntityManager, orders: OrderEntity[]) =>
  attachChildren(
    manager,
    orders,
    OrderLineEntity,
    { parent: 'orderId', order: 'lineNo' },
    (parent, lines) => {
      parent.lines = lines;
    },
  );
