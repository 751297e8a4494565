import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../auth/principal';
import { hasMinorUnits, minorDigits } from '../common/money';
import type { StatusWithHistory } from '../common/status-history';
import { together } from '../database/pipeline';
import { CommitHook, inTransaction } from '../database/transaction';
import { Outbox } from '../events/outbox';
import {
  ConflictProblem,
  FieldError,
  NotFoundProblem,
  Problem,
  ValidationProblem,
} from '../http/problems/problem';
import { Page } from '../http/pagination/page';
import type { PageRequest } from '../http/pagination/paginate';
import { InventoryRepository, StockLine } from '../inventory/inventory.repository';
import { ProductsRepository } from '../products/products.repository';
import type { ProductEntity } from '../products/product.entity';
import type { OrderInput, OrderPatch } from './order-input';
import type { OrderLineEntity } from './order-line.entity';
import { InsufficientStockProblem } from './order-problems';
import { ORDER_LIFE, type OrderStatus } from './order-status';
import type { OrderEntity, ShippingAddress } from './order.entity';
import { OrderFilters, OrdersRepository } from './orders.repository';
import { toOrderV1 } from './orders.mapper';

/** The largest amount a bigint column holds, in minor units. */
const MAX_MINOR = 2n ** 63n - 1n;

export type OrderWithHistory = StatusWithHistory<OrderStatus, OrderEntity>;

/**
 * Order use cases. Creation snapshots the catalog and reserves stock in one transaction;
 * status changes move stock under the order's row lock. Customers place orders and read
 * their own; everything else is for staff.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly inventory: InventoryRepository,
    private readonly products: ProductsRepository,
    private readonly outbox: Outbox,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(principal: Principal, filters: OrderFilters, page: PageRequest): Promise<Page<OrderEntity>> {
    return this.orders.list(principal, filters, page);
  }

  async get(principal: Principal, id: string): Promise<OrderEntity> {
    return (await this.orders.findVisibleTo(principal, id)) ?? notFound(id);
  }

  async statusOf(principal: Principal, id: string): Promise<OrderWithHistory> {
    const order = await this.get(principal, id);
    return { current: order, history: await this.orders.historyOf(order) };
  }

  create(principal: Principal, input: OrderInput, commitHook?: CommitHook): Promise<OrderEntity> {
    const customerId = customerFor(principal, input.customerId);
    rejectRepeatedSkus(input.lines);
    return inTransaction(
      this.dataSource,
      async (manager) => {
        // The catalog read and the reservations do not wait for one another (pipeline.ts);
        // an unknown or inactive SKU is still refused before a short one.
        const [products, short] = await together(
          manager,
          () =>
            this.products.findLiveBySkus(
              manager,
              input.lines.map((l) => l.sku),
            ),
          () => this.inventory.reserve(manager, input.lines),
        );
        const id = uuidv7();
        const priced = priceLines(id, input.lines, products);
        if (short.length > 0) {
          const index = new Map(input.lines.map((l, i) => [l.sku, i]));
          throw new InsufficientStockProblem(
            short
              .map((line) => ({ ...line, index: index.get(line.sku) as number }))
              .sort((a, b) => a.index - b.index),
          );
        }
        const order = await this.orders.insert(
          manager,
          {
            id,
            customerId,
            status: 'pending',
            currency: priced.currency,
            totalMinor: priced.totalMinor,
            totalScale: priced.scale,
            shippingAddress: input.shippingAddress,
            notes: input.notes,
          },
          priced.lines,
          principal.subject,
        );
        await this.outbox.record(manager, 'order.created', toOrderV1(order));
        return order;
      },
      commitHook,
    );
  }

  /** PATCH: notes and shipping address, only while the order is pending. */
  async update(id: string, patch: OrderPatch, expectedVersions?: number[]): Promise<OrderEntity> {
    const updated = await inTransaction(this.dataSource, (manager) =>
      this.orders.update(manager, id, expectedVersions, (current) => {
        if (current.status !== 'pending') {
          throw new ConflictProblem(
            `The order is ${current.status}; notes and shippingAddress can change only while it is pending.`,
          );
        }
        // The address is a jsonb object: compared member by member, since a new object
        // is never the stored one and would otherwise count as a change (API.md §3).
        const address = patch.shippingAddress;
        return {
          ...(patch.notes !== undefined ? { notes: patch.notes } : {}),
          ...(address !== undefined && !sameAddress(current.shippingAddress, address)
            ? { shippingAddress: address }
            : {}),
        };
      }),
    );
    return updated?.current ?? notFound(id);
  }

  async changeStatus(
    principal: Principal,
    id: string,
    to: OrderStatus,
    expectedVersions?: number[],
  ): Promise<OrderWithHistory> {
    const order = await inTransaction(this.dataSource, (manager) =>
      this.moveStatus(manager, id, to, principal.subject, expectedVersions),
    );
    return { current: order, history: await this.orders.historyOf(order) };
  }

  /**
   * Moves an order to `to` inside the caller's transaction (shipments reuse it): the
   * row is locked, the transition checked against the one table, stock moved, history
   * appended and the version bumped, or nothing happens at all.
   */
  async moveStatus(
    manager: EntityManager,
    id: string,
    to: OrderStatus,
    actor: string,
    expectedVersions?: number[],
  ): Promise<OrderEntity> {
    const moved = await this.orders.update(manager, id, expectedVersions, async (current) => {
      const effect = ORDER_LIFE.move(current.status, to);
      const stock: StockLine[] = current.lines.map((l) => ({ sku: l.sku, quantity: l.quantity }));
      if (effect === 'release') await this.inventory.release(manager, stock);
      if (effect === 'ship') await this.inventory.ship(manager, stock, `order ${id} shipped`);
      await this.orders.appendHistory(manager, {
        orderId: id,
        orderVersion: current.version + 1,
        fromStatus: current.status,
        toStatus: to,
        actor,
      });
      return { status: to };
    });
    if (!moved) return notFound(id);
    await this.outbox.record(manager, 'order.status_changed', toOrderV1(moved.current));
    return moved.current;
  }

  /**
   * The order locked until the caller's transaction ends, with its lines; null when there
   * is none. Invoices and shipments check an order's status this way before acting on it.
   */
  findForUpdate(manager: EntityManager, id: string): Promise<OrderEntity | null> {
    return this.orders.findForUpdate(manager, id);
  }

  /**
   * The "shipment cancelled" path (docs/orders.md), inside the caller's transaction: a
   * shipped order goes back to confirmed and the shipped units come back on hand and
   * reserved again, so the order holds its reservation as any confirmed order does. It is
   * not in the status table: a client cannot PATCH an order from shipped to confirmed,
   * only cancelling the order's shipment does this. History and order.status_changed as
   * for any move.
   */
  async returnFromShipment(
    manager: EntityManager,
    id: string,
    actor: string,
  ): Promise<OrderEntity> {
    const moved = await this.orders.update(manager, id, undefined, async (current) => {
      if (current.status !== 'shipped') {
        throw ORDER_LIFE.transitionProblem(current.status, 'confirmed');
      }
      const stock: StockLine[] = current.lines.map((l) => ({ sku: l.sku, quantity: l.quantity }));
      await this.inventory.unship(manager, stock, `order ${id} shipment cancelled`);
      await this.orders.appendHistory(manager, {
        orderId: id,
        orderVersion: current.version + 1,
        fromStatus: current.status,
        toStatus: 'confirmed',
        actor,
      });
      return { status: 'confirmed' as const };
    });
    if (!moved) return notFound(id);
    await this.outbox.record(manager, 'order.status_changed', toOrderV1(moved.current));
    return moved.current;
  }
}

/** The customer an order is for: a customer's own; staff must name one. */
function customerFor(principal: Principal, requested: string | undefined): string {
  if (principal.role === 'customer') {
    if (principal.customerId === undefined) {
      throw new Problem('forbidden', 'This customer credential names no customer.');
    }
    if (requested !== undefined && requested !== principal.customerId) {
      throw new Problem(
        'forbidden',
        'A customer can place orders only for itself: omit customerId or send your own.',
      );
    }
    return principal.customerId;
  }
  if (requested === undefined) {
    throw new ValidationProblem([
      { field: 'customerId', message: 'is required when staff place an order' },
    ]);
  }
  return requested;
}

/** Every member of an address; `satisfies` fails the build when one is added and not here. */
const ADDRESS_MEMBERS = Object.keys({
  name: true,
  line1: true,
  line2: true,
  city: true,
  postalCode: true,
  country: true,
} satisfies Record<keyof ShippingAddress, true>) as (keyof ShippingAddress)[];

/** Equal addresses after normalisation: an absent optional member is null. */
function sameAddress(a: ShippingAddress, b: ShippingAddress): boolean {
  return ADDRESS_MEMBERS.every((member) => (a[member] ?? null) === (b[member] ?? null));
}

function rejectRepeatedSkus(lines: OrderInput['lines']): void {
  const first = new Map<string, number>();
  const errors: FieldError[] = [];
  lines.forEach((line, i) => {
    const seen = first.get(line.sku);
    if (seen === undefined) first.set(line.sku, i);
    else {
      errors.push({
        field: `lines[${i}].sku`,
        message: `repeats lines[${seen}].sku; order each SKU once with its total quantity`,
      });
    }
  });
  if (errors.length > 0) throw new ValidationProblem(errors);
}

interface PricedLines {
  currency: string;
  scale: number;
  totalMinor: string;
  lines: Omit<OrderLineEntity, 'order'>[];
}

/**
 * The snapshot: each line priced and named from its live product. Unknown, archived or
 * inactive products and a second currency are one 422 naming every such line.
 *
 * A product keeps the scale its price was stored with, and rows stored while minor digits
 * came from the runtime's ICU data have fewer than ISO 4217 gives their currency (HUF 0,
 * not 2). The order takes the currency's ISO 4217 digits, or a line's scale if that is
 * larger, and brings every price to it: more digits only, so exactly.
 */
function priceLines(
  orderId: string,
  lines: OrderInput['lines'],
  products: ProductEntity[],
): PricedLines {
  const bySku = new Map(products.map((p) => [p.sku, p]));
  const errors: FieldError[] = [];
  let currency: string | undefined;
  const found = lines.map((line, i) => {
    const field = `lines[${i}].sku`;
    const product = bySku.get(line.sku);
    if (!product) {
      errors.push({ field, message: `names no product: none has SKU "${line.sku}"` });
      return undefined;
    }
    if (!product.active) {
      errors.push({
        field,
        message: `names product "${line.sku}", which is not active and cannot be ordered`,
      });
      return undefined;
    }
    if (currency === undefined) {
      currency = product.currency;
    } else if (product.currency !== currency) {
      errors.push({
        field,
        message: `names a product priced in ${product.currency}; an order has one currency and its first line is in ${currency}`,
      });
      return undefined;
    }
    return product;
  });
  if (errors.length > 0) throw new ValidationProblem(errors);
  const inOrder = found as ProductEntity[];
  const scale = Math.max(
    hasMinorUnits(currency as string) ? minorDigits(currency as string) : 0,
    ...inOrder.map((product) => product.priceScale),
  );
  let total = 0n;
  const priced = lines.map((line, i) => {
    const product = inOrder[i];
    const unitPrice = BigInt(product.priceMinor) * 10n ** BigInt(scale - product.priceScale);
    const lineTotal = unitPrice * BigInt(line.quantity);
    total += lineTotal;
    return {
      orderId,
      lineNo: i + 1,
      sku: line.sku,
      productId: product.id,
      name: product.name,
      quantity: line.quantity,
      unitPriceMinor: unitPrice.toString(),
      lineTotalMinor: lineTotal.toString(),
    };
  });
  if (total > MAX_MINOR) {
    throw new ValidationProblem([
      { field: 'lines', message: 'the order total is larger than this service can hold' },
    ]);
  }
  return {
    currency: currency as string,
    scale,
    totalMinor: total.toString(),
    lines: priced,
  };
}

function notFound(id: string): never {
  throw new NotFoundProblem('order', id);
}
