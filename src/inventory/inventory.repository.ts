import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { together } from '../database/pipeline';
import { PreparedStatement } from '../database/prepared-statement';
import { type Updated, updateWithLock } from '../database/update-with-lock';
import type { CollectionSpec } from '../http/pagination/collection-spec';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { Page } from '../http/pagination/page';
import { paginate, PageRequest } from '../http/pagination/paginate';
import { InventoryAdjustmentEntity } from './inventory-adjustment.entity';
import { InventoryItemEntity } from './inventory-item.entity';

export interface InventoryFilters {
  belowReorderLevel?: boolean;
}

const SKU = { column: 'i.sku', property: 'sku', kind: 'string' } as const;

export const INVENTORY: CollectionSpec = {
  name: 'inventory',
  counted: 'inventory_items',
  key: SKU,
  defaultSort: 'sku',
  sortable: {
    sku: SKU,
    quantityOnHand: { column: 'i.quantity_on_hand', property: 'quantityOnHand', kind: 'number' },
    reorderLevel: { column: 'i.reorder_level', property: 'reorderLevel', kind: 'number' },
    createdAt: { column: 'i.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 'i.updated_at', property: 'updatedAt', kind: 'date' },
  },
};

const ADJUSTMENT_ID = { column: 'a.id', property: 'id', kind: 'string' } as const;

export const ADJUSTMENTS: CollectionSpec = {
  name: 'inventory-adjustments',
  key: ADJUSTMENT_ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ADJUSTMENT_ID,
    createdAt: { column: 'a.created_at', property: 'createdAt', kind: 'date' },
  },
};

/**
 * What an adjustment did: applied, or refused with the level that refused it (`short`:
 * on hand would fall below reserved; `over`: it would rise above the most allowed).
 */
export type AdjustmentResult =
  | { applied: InventoryAdjustmentEntity }
  | { missing: true }
  | { short: InventoryItemEntity }
  | { over: InventoryItemEntity };

/** Units of one SKU that an order reserves, releases or ships. */
export interface StockLine {
  sku: string;
  quantity: number;
}

/** A line that could not be reserved, with what was available at that moment. */
export interface ShortLine extends StockLine {
  available: number;
}

/** Lines in the one order every stock-moving transaction locks rows in, against deadlocks. */
const inSkuOrder = <L extends StockLine>(lines: L[]): L[] =>
  [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));

// Every order runs these for each of its lines.
const RESERVE = new PreparedStatement(
  `UPDATE inventory_items
      SET quantity_reserved = quantity_reserved + $2, version = version + 1, updated_at = now()
    WHERE sku = $1 AND archived_at IS NULL AND quantity_on_hand - quantity_reserved >= $2`,
);
const AVAILABLE = new PreparedStatement(
  `SELECT greatest(quantity_on_hand - quantity_reserved, 0) AS available
     FROM inventory_items WHERE sku = $1 AND archived_at IS NULL`,
);

/** The stock levels a change left, as an UPDATE returns them. */
type Level = { quantity_on_hand: number; quantity_reserved: number };

/**
 * The guarded UPDATE of an adjustment; null when it changed nothing (refused, or no live
 * item). The guards add in bigint, so a sum past the integer column's range is a refusal,
 * not an error. A decrease is never refused for being above `maxOnHand`: it moves toward it.
 */
async function applyDelta(
  manager: EntityManager,
  sku: string,
  delta: number,
  maxOnHand: number,
): Promise<Level | null> {
  // TypeORM answers a raw UPDATE with [rows, affected count], not with the rows.
  const [rows]: [Level[], number] = await manager.query(
    `UPDATE inventory_items
        SET quantity_on_hand = quantity_on_hand + $2::integer, version = version + 1,
            updated_at = clock_timestamp()
      WHERE sku = $1 AND archived_at IS NULL
        AND quantity_on_hand::bigint + $2::integer >= quantity_reserved
        AND ($2::integer < 0 OR quantity_on_hand::bigint + $2::integer <= $3::integer)
      RETURNING quantity_on_hand, quantity_reserved`,
    [sku, delta, maxOnHand],
  );
  return rows[0] ?? null;
}

/** A ledger row for a change the caller's transaction made, with the levels it left. */
type LedgerEntry = Pick<
  InventoryAdjustmentEntity,
  'sku' | 'delta' | 'reason' | 'quantityOnHand' | 'quantityReserved'
>;

/**
 * Records a change of stock that the caller made under the item's row lock; returns the
 * entry's id. Its time is taken now, with the lock held (`clock_timestamp()`, not the
 * transaction's start `now()`), so the ledger's newest-first order is the order the
 * changes were applied in, even when adjustments, PUTs and shipments raced.
 */
async function recordInLedger(manager: EntityManager, entry: LedgerEntry): Promise<string> {
  const id = uuidv7();
  await manager.insert(InventoryAdjustmentEntity, {
    id,
    ...entry,
    createdAt: () => 'clock_timestamp()',
  });
  return id;
}

/** All SQL about stock levels and their ledger. */
@Injectable()
export class InventoryRepository {
  constructor(
    @InjectRepository(InventoryItemEntity) private readonly items: Repository<InventoryItemEntity>,
    @InjectRepository(InventoryAdjustmentEntity)
    private readonly adjustments: Repository<InventoryAdjustmentEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  findLive(sku: string): Promise<InventoryItemEntity | null> {
    return this.live().andWhere('i.sku = :sku', { sku }).getOne();
  }

  list(filters: InventoryFilters, page: PageRequest): Promise<Page<InventoryItemEntity>> {
    const qb = this.live();
    // `below_reorder` is `quantity_on_hand - quantity_reserved < reorder_level`, stored
    // (migration InventoryHotUpdates): its partial index must not name the quantities.
    if (filters.belowReorderLevel === true) {
      qb.andWhere('i.below_reorder');
    } else if (filters.belowReorderLevel === false) {
      qb.andWhere('NOT i.below_reorder');
    }
    return paginate(qb, INVENTORY, page, this.cursors, this.live());
  }

  /** Every product has one inventory item, created with it at quantity 0. */
  async insertFor(manager: EntityManager, product: { id: string; sku: string }): Promise<void> {
    await manager.insert(InventoryItemEntity, { sku: product.sku, productId: product.id });
  }

  async archiveFor(manager: EntityManager, productId: string): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(InventoryItemEntity)
      .set({ archivedAt: () => 'now()' })
      .where('product_id = :productId AND archived_at IS NULL', { productId })
      .execute();
  }

  /**
   * PUT and PATCH, inside the caller's transaction: the new levels under the row lock. A
   * change of on-hand stock is recorded in the ledger as the difference, in the same
   * transaction, so the ledger explains every unit on hand however it was set.
   */
  async update(
    manager: EntityManager,
    sku: string,
    expectedVersions: number[] | undefined,
    change: (current: InventoryItemEntity) => Partial<InventoryItemEntity>,
  ): Promise<Updated<InventoryItemEntity> | null> {
    const updated = await updateWithLock(manager, InventoryItemEntity, 'i', {
      keyColumn: 'i.sku',
      key: sku,
      expectedVersions,
      change,
    });
    if (updated && updated.current.quantityOnHand !== updated.previous.quantityOnHand) {
      const { previous, current } = updated;
      await recordInLedger(manager, {
        sku,
        delta: current.quantityOnHand - previous.quantityOnHand,
        reason: `quantityOnHand set to ${current.quantityOnHand}`,
        quantityOnHand: current.quantityOnHand,
        quantityReserved: current.quantityReserved,
      });
    }
    return updated;
  }

  /**
   * Applies `delta` to on-hand stock inside the caller's transaction, with one guarded
   * UPDATE, so concurrent adjustments never lose one another and stock stays between what
   * is reserved and `maxOnHand`; the ledger row is written in the same transaction
   * (recordInLedger).
   */
  async adjust(
    manager: EntityManager,
    sku: string,
    delta: number,
    reason: string,
    maxOnHand: number,
  ): Promise<AdjustmentResult> {
    let level = await applyDelta(manager, sku, delta, maxOnHand);
    if (!level) {
      // Refused, or no such item. The reason is read from the row locked FOR UPDATE, so
      // it holds until this transaction ends: a write committed after the UPDATE missed
      // cannot make the answer wrong.
      const current = await manager
        .createQueryBuilder(InventoryItemEntity, 'i')
        .where('i.sku = :sku AND i.archived_at IS NULL', { sku })
        .setLock('pessimistic_write')
        .getOne();
      if (!current) return { missing: true };
      const after = current.quantityOnHand + delta;
      if (after < current.quantityReserved) return { short: current };
      if (delta > 0 && after > maxOnHand) return { over: current };
      // Such a write made room after all; with the row locked this one now applies.
      level = await applyDelta(manager, sku, delta, maxOnHand);
      if (!level) throw new Error(`adjustment of ${sku} refused under its row lock`);
    }
    const id = await recordInLedger(manager, {
      sku,
      delta,
      reason,
      quantityOnHand: level.quantity_on_hand,
      quantityReserved: level.quantity_reserved,
    });
    return { applied: await manager.findOneByOrFail(InventoryAdjustmentEntity, { id }) };
  }

  /**
   * Reserves every line inside the caller's transaction with one guarded UPDATE per line,
   * sent together in sku order (pipeline.ts), so no interleaving can oversell and rows are
   * locked in the one order. Returns the lines that are short, each with what was
   * available when it was read; when there are any the caller must roll back.
   */
  async reserve(manager: EntityManager, lines: StockLine[]): Promise<ShortLine[]> {
    const ordered = inSkuOrder(lines);
    const updates = await together(
      manager,
      ...ordered.map(
        (line) => () => RESERVE.run<[unknown[], number]>(manager, [line.sku, line.quantity]),
      ),
    );
    // A line whose UPDATE matched nothing is short, whatever the later read says.
    const short = ordered.filter((_, index) => updates[index][1] !== 1);
    if (short.length === 0) return [];
    const levels = await together(
      manager,
      ...short.map((line) => () => AVAILABLE.run<{ available: number }[]>(manager, [line.sku])),
    );
    return short.map((line, index) => ({ ...line, available: levels[index][0]?.available ?? 0 }));
  }

  /** Gives reservations back (an order cancelled), in sku order. */
  async release(manager: EntityManager, lines: StockLine[]): Promise<void> {
    for (const line of inSkuOrder(lines)) {
      const [, released]: [unknown[], number] = await manager.query(
        `UPDATE inventory_items
            SET quantity_reserved = quantity_reserved - $2, version = version + 1, updated_at = now()
          WHERE sku = $1`,
        [line.sku, line.quantity],
      );
      if (released !== 1) throw new Error(`no inventory item ${line.sku} to release stock of`);
    }
  }

  /**
   * Takes reserved units out of on-hand stock (an order shipped), in sku order, and
   * records each change in the SKU's ledger with `reason`.
   */
  async ship(manager: EntityManager, lines: StockLine[], reason: string): Promise<void> {
    for (const line of inSkuOrder(lines)) {
      const [rows]: [Level[], number] = await manager.query(
        `UPDATE inventory_items
            SET quantity_on_hand = quantity_on_hand - $2, quantity_reserved = quantity_reserved - $2,
                version = version + 1, updated_at = now()
          WHERE sku = $1
          RETURNING quantity_on_hand, quantity_reserved`,
        [line.sku, line.quantity],
      );
      const level = rows[0] as Level | undefined;
      if (!level) throw new Error(`no inventory item ${line.sku} to ship stock from`);
      await recordInLedger(manager, {
        sku: line.sku,
        delta: -line.quantity,
        reason,
        quantityOnHand: level.quantity_on_hand,
        quantityReserved: level.quantity_reserved,
      });
    }
  }

  /**
   * The reverse of ship(): a cancelled shipment's units come back on hand and are reserved
   * again for their order, which returns to confirmed. In sku order, each change recorded
   * in the SKU's ledger with `reason`.
   */
  async unship(manager: EntityManager, lines: StockLine[], reason: string): Promise<void> {
    for (const line of inSkuOrder(lines)) {
      const [rows]: [Level[], number] = await manager.query(
        `UPDATE inventory_items
            SET quantity_on_hand = quantity_on_hand + $2, quantity_reserved = quantity_reserved + $2,
                version = version + 1, updated_at = now()
          WHERE sku = $1
          RETURNING quantity_on_hand, quantity_reserved`,
        [line.sku, line.quantity],
      );
      const level = rows[0] as Level | undefined;
      if (!level) throw new Error(`no inventory item ${line.sku} to return stock to`);
      await recordInLedger(manager, {
        sku: line.sku,
        delta: line.quantity,
        reason,
        quantityOnHand: level.quantity_on_hand,
        quantityReserved: level.quantity_reserved,
      });
    }
  }

  findAdjustment(sku: string, id: string): Promise<InventoryAdjustmentEntity | null> {
    return this.adjustments.findOneBy({ sku, id });
  }

  listAdjustments(sku: string, page: PageRequest): Promise<Page<InventoryAdjustmentEntity>> {
    const qb = this.adjustments.createQueryBuilder('a').where('a.sku = :sku', { sku });
    return paginate(qb, ADJUSTMENTS, page, this.cursors);
  }

  private live() {
    return this.items.createQueryBuilder('i').where('i.archived_at IS NULL');
  }
}
