import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { updateWithLock } from '../database/update-with-lock';
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

export type AdjustmentResult =
  { applied: InventoryAdjustmentEntity } | { missing: true } | { short: InventoryItemEntity };

/** All SQL about stock levels and their ledger. */
@Injectable()
export class InventoryRepository {
  constructor(
    @InjectRepository(InventoryItemEntity) private readonly items: Repository<InventoryItemEntity>,
    @InjectRepository(InventoryAdjustmentEntity)
    private readonly adjustments: Repository<InventoryAdjustmentEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  findLive(sku: string): Promise<InventoryItemEntity | null> {
    return this.live().andWhere('i.sku = :sku', { sku }).getOne();
  }

  list(filters: InventoryFilters, page: PageRequest): Promise<Page<InventoryItemEntity>> {
    const qb = this.live();
    if (filters.belowReorderLevel === true) {
      qb.andWhere('i.quantity_on_hand - i.quantity_reserved < i.reorder_level');
    } else if (filters.belowReorderLevel === false) {
      qb.andWhere('i.quantity_on_hand - i.quantity_reserved >= i.reorder_level');
    }
    return paginate(qb, INVENTORY, page, this.cursors);
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

  update(
    sku: string,
    expectedVersions: number[] | undefined,
    change: (current: InventoryItemEntity) => Partial<InventoryItemEntity>,
  ): Promise<InventoryItemEntity | null> {
    return this.dataSource.transaction((manager) =>
      updateWithLock(manager, InventoryItemEntity, 'i', {
        keyColumn: 'i.sku',
        key: sku,
        expectedVersions,
        change,
      }),
    );
  }

  /**
   * Applies `delta` to on-hand stock with one guarded UPDATE, so concurrent adjustments
   * never lose one another and stock never drops below what is reserved; the ledger row
   * is written in the same transaction.
   */
  adjust(sku: string, delta: number, reason: string): Promise<AdjustmentResult> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { quantity_on_hand: number; quantity_reserved: number }[] = await manager.query(
        `UPDATE inventory_items
            SET quantity_on_hand = quantity_on_hand + $2, version = version + 1, updated_at = now()
          WHERE sku = $1 AND archived_at IS NULL AND quantity_on_hand + $2 >= quantity_reserved
          RETURNING quantity_on_hand, quantity_reserved`,
        [sku, delta],
      );
      const level = rows[0] as { quantity_on_hand: number; quantity_reserved: number } | undefined;
      if (!level) {
        const current = await manager.findOneBy(InventoryItemEntity, { sku });
        return current && !current.archivedAt ? { short: current } : { missing: true };
      }
      const adjustment = manager.create(InventoryAdjustmentEntity, {
        id: uuidv7(),
        sku,
        delta,
        reason,
        quantityOnHand: level.quantity_on_hand,
        quantityReserved: level.quantity_reserved,
      });
      await manager.insert(InventoryAdjustmentEntity, adjustment);
      return {
        applied: await manager.findOneByOrFail(InventoryAdjustmentEntity, { id: adjustment.id }),
      };
    });
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
