import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { isFieldError, parseMoney, StoredMoney } from '../common/money';
import { CommitHook, inTransaction } from '../database/transaction';
import { NotFoundProblem, ValidationProblem } from '../http/problems/problem';
import { Page } from '../http/pagination/page';
import type { PageRequest } from '../http/pagination/paginate';
import { InventoryRepository } from '../inventory/inventory.repository';
import type { PriceInput, ProductInput, ProductPatch } from './product-input';
import { ProductEntity } from './product.entity';
import { ProductFilters, ProductsRepository } from './products.repository';

/** Product use cases; a product and its inventory item live and die together. */
@Injectable()
export class ProductsService {
  constructor(
    private readonly products: ProductsRepository,
    private readonly inventory: InventoryRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(filters: ProductFilters, page: PageRequest): Promise<Page<ProductEntity>> {
    return this.products.list(filters, page);
  }

  async get(id: string): Promise<ProductEntity> {
    return (await this.products.findLive(id)) ?? notFound(id);
  }

  create(input: ProductInput, commitHook?: CommitHook): Promise<ProductEntity> {
    const money = moneyOf(input.price);
    return inTransaction(
      this.dataSource,
      async (manager) => {
        const product = await this.products.insert(manager, {
          id: uuidv7(),
          sku: input.sku,
          name: input.name,
          description: input.description,
          category: input.category,
          active: input.active,
          ...priceColumns(money),
        });
        await this.inventory.insertFor(manager, product);
        return product;
      },
      commitHook,
    );
  }

  /** PUT: every field from `input`; omitted optional fields arrive at their defaults. */
  replace(id: string, input: ProductInput, expectedVersions?: number[]): Promise<ProductEntity> {
    return this.update(id, input, expectedVersions);
  }

  async update(
    id: string,
    patch: ProductPatch,
    expectedVersions?: number[],
  ): Promise<ProductEntity> {
    const updated = await inTransaction(this.dataSource, (manager) =>
      this.products.update(manager, id, expectedVersions, (current) => {
        if (patch.sku !== undefined && patch.sku !== current.sku) {
          throw new ValidationProblem([{ field: 'sku', message: 'cannot be changed' }]);
        }
        const { sku: _sku, price, ...fields } = patch;
        const money = price && moneyOf({ ...price, currency: price.currency ?? current.currency });
        return { ...fields, ...(money ? priceColumns(money) : {}) };
      }),
    );
    return updated?.current ?? notFound(id);
  }

  /** DELETE archives: gone from reads, kept for the orders that snapshot it. */
  async archive(id: string, expectedVersions?: number[]): Promise<void> {
    const archived = await inTransaction(this.dataSource, async (manager) => {
      const product = await this.products.update(manager, id, expectedVersions, () => ({
        archivedAt: new Date(),
      }));
      if (product) await this.inventory.archiveFor(manager, product.current.id);
      return product;
    });
    if (!archived) notFound(id);
  }
}

function moneyOf(price: PriceInput): StoredMoney {
  const money = parseMoney(price.amount, price.currency, price.fields);
  if (isFieldError(money)) throw new ValidationProblem([money]);
  return money;
}

function priceColumns(
  money: StoredMoney,
): Pick<ProductEntity, 'priceMinor' | 'priceScale' | 'currency'> {
  return { priceMinor: money.minor.toString(), priceScale: money.scale, currency: money.currency };
}

function notFound(id: string): never {
  throw new NotFoundProblem('product', id);
}
