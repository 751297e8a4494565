import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type CommitHook, inTransaction } from '../database/transaction';
import {
  ConflictProblem,
  NotFoundProblem,
  Problem,
  ValidationProblem,
} from '../http/problems/problem';
import { Page } from '../http/pagination/page';
import type { PageRequest } from '../http/pagination/paginate';
import { MAX_QUANTITY } from './dto/inventory.dto';
import { InventoryAdjustmentEntity } from './inventory-adjustment.entity';
import { InventoryItemEntity } from './inventory-item.entity';
import { InventoryFilters, InventoryRepository } from './inventory.repository';

export interface StockLevelInput {
  quantityOnHand?: number;
  reorderLevel?: number;
}

/** Stock levels: set (PUT/PATCH), adjusted (relative), listed. Reservations belong to orders. */
@Injectable()
export class InventoryService {
  constructor(
    private readonly inventory: InventoryRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(filters: InventoryFilters, page: PageRequest): Promise<Page<InventoryItemEntity>> {
    return this.inventory.list(filters, page);
  }

  async get(sku: string): Promise<InventoryItemEntity> {
    return (await this.inventory.findLive(sku)) ?? notFound(sku);
  }

  /** PUT: `reorderLevel` resets to 0 when omitted. */
  replace(
    sku: string,
    input: Required<Pick<StockLevelInput, 'quantityOnHand'>> & StockLevelInput,
    versions?: number[],
  ) {
    return this.update(sku, { reorderLevel: 0, ...input }, versions);
  }

  async update(
    sku: string,
    input: StockLevelInput,
    versions?: number[],
  ): Promise<InventoryItemEntity> {
    const updated = await inTransaction(this.dataSource, (manager) =>
      this.inventory.update(manager, sku, versions, (current) => {
        if (input.quantityOnHand !== undefined && input.quantityOnHand < current.quantityReserved) {
          throw new ConflictProblem(
            `quantityOnHand cannot be below the ${current.quantityReserved} units reserved for open orders.`,
          );
        }
        return { ...input };
      }),
    );
    return updated?.current ?? notFound(sku);
  }

  /**
   * A relative change, refused when on-hand stock would end up below what is reserved
   * (409, as an order short of stock) or above the most PUT and PATCH accept (422).
   */
  async adjust(
    sku: string,
    delta: number,
    reason: string,
    commitHook?: CommitHook,
  ): Promise<InventoryAdjustmentEntity> {
    const result = await inTransaction(
      this.dataSource,
      (manager) => this.inventory.adjust(manager, sku, delta, reason, MAX_QUANTITY),
      commitHook,
    );
    if ('applied' in result) return result.applied;
    if ('missing' in result) notFound(sku);
    if ('over' in result) {
      const onHand = result.over.quantityOnHand;
      const room = MAX_QUANTITY - onHand;
      const bound = room > 0 ? `at most ${room}` : 'negative';
      throw new ValidationProblem([
        {
          field: 'delta',
          message: `must be ${bound}: on-hand stock is capped at ${MAX_QUANTITY} units and ${onHand} are on hand`,
        },
      ]);
    }
    const { quantityOnHand, quantityReserved } = result.short;
    throw new Problem(
      'insufficient_stock',
      `Removing ${-delta} units would leave less on hand than the ${quantityReserved} reserved.`,
      [{ field: 'delta', message: `must be at least ${quantityReserved - quantityOnHand}` }],
    );
  }

  async listAdjustments(sku: string, page: PageRequest): Promise<Page<InventoryAdjustmentEntity>> {
    await this.get(sku);
    return this.inventory.listAdjustments(sku, page);
  }

  async getAdjustment(sku: string, id: string): Promise<InventoryAdjustmentEntity> {
    const adjustment = await this.inventory.findAdjustment(sku, id);
    if (!adjustment) throw new NotFoundProblem('inventory adjustment', id);
    return adjustment;
  }
}

function notFound(sku: string): never {
  throw new NotFoundProblem('inventory item', sku);
}
