import { violates } from '../database/constraint-violation';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import { columnsAsProperties } from '../database/columns-as-properties';
import { PreparedStatement } from '../database/prepared-statement';
import { type Updated, updateWithLock } from '../database/update-with-lock';
import { ConflictProblem } from '../http/problems/problem';
import type { CollectionSpec } from '../http/pagination/collection-spec';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { Page } from '../http/pagination/page';
import { paginate, PageRequest } from '../http/pagination/paginate';
import { ProductEntity } from './product.entity';

export interface ProductFilters {
  category?: string;
  active?: boolean;
  q?: string;
  minPrice?: string;
  maxPrice?: string;
  currency?: string;
}

const ID = { column: 'p.id', property: 'id', kind: 'string' } as const;

export const PRODUCTS: CollectionSpec = {
  name: 'products',
  counted: 'products',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    sku: { column: 'p.sku', property: 'sku', kind: 'string' },
    name: { column: 'p.name', property: 'name', kind: 'string' },
    category: { column: 'p.category', property: 'category', kind: 'string' },
    price: { column: 'p.price', property: 'price', kind: 'decimal' },
    createdAt: { column: 'p.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 'p.updated_at', property: 'updatedAt', kind: 'date' },
  },
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** All SQL about products. Archived products are invisible to every read. */
@Injectable()
export class ProductsRepository {
  private byId?: PreparedStatement;
  private bySkus?: PreparedStatement;

  constructor(
    @InjectRepository(ProductEntity) private readonly products: Repository<ProductEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  /**
   * The hot read (GET by id): one statement whose text is built once. TypeORM's query
   * builder and its hydration cost more CPU than PostgreSQL spends answering.
   */
  async findLive(id: string): Promise<ProductEntity | null> {
    this.byId ??= new PreparedStatement(
      `SELECT ${columnsAsProperties(this.products.manager, ProductEntity)}
         FROM products WHERE id = $1 AND archived_at IS NULL`,
    );
    const rows = await this.byId.run<ObjectLiteral[]>(this.products, [id]);
    return rows[0] ? this.products.create(rows[0]) : null;
  }

  /**
   * The live products `skus` name, read with `manager`: inside the caller's transaction,
   * as an order's catalog snapshot is taken. Archived products are not returned.
   *
   * Locked FOR KEY SHARE, the lock the order's lines take anyway (their foreign key),
   * taken here, before the reservations lock the inventory items. An archive locks the
   * product, then its item: both lock in that order, so they cannot deadlock, and an order
   * that waited for an archive to commit finds the product archived (it names no product)
   * instead of finding its item gone (short of stock). A price change waits for the orders
   * reading the old price, or they read the new one.
   */
  async findLiveBySkus(manager: EntityManager, skus: string[]): Promise<ProductEntity[]> {
    this.bySkus ??= new PreparedStatement(
      `SELECT ${columnsAsProperties(manager, ProductEntity)}
         FROM products WHERE sku = ANY($1) AND archived_at IS NULL
         FOR KEY SHARE`,
    );
    const rows = await this.bySkus.run<ObjectLiteral[]>(manager, [skus]);
    return rows.map((row) => manager.create(ProductEntity, row));
  }

  list(filters: ProductFilters, page: PageRequest): Promise<Page<ProductEntity>> {
    return paginate(this.matching(filters), PRODUCTS, page, this.cursors, this.live());
  }

  /**
   * The live products `filters` select, unsorted and unpaged. `q`, `active` and
   * `currency` are served by the indexes of migration ProductFilterIndexes
   * (test/product-filters.test.ts reads this query's plans).
   */
  matching(filters: ProductFilters): SelectQueryBuilder<ProductEntity> {
    const qb = this.live();
    if (filters.category !== undefined) qb.andWhere('p.category = :category', filters);
    if (filters.active !== undefined) qb.andWhere('p.active = :active', filters);
    if (filters.currency !== undefined) qb.andWhere('p.currency = :currency', filters);
    if (filters.minPrice !== undefined) qb.andWhere('p.price >= :minPrice', filters);
    if (filters.maxPrice !== undefined) qb.andWhere('p.price <= :maxPrice', filters);
    if (filters.q !== undefined) {
      qb.andWhere('(p.name ILIKE :q OR p.sku ILIKE :q)', { q: `%${escapeLike(filters.q)}%` });
    }
    return qb;
  }

  async insert(manager: EntityManager, product: Partial<ProductEntity>): Promise<ProductEntity> {
    try {
      await manager.insert(ProductEntity, product);
    } catch (error) {
      throw this.skuTaken(error, product.sku) ?? error;
    }
    return manager.findOneByOrFail(ProductEntity, { id: product.id });
  }

  update(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
    change: (current: ProductEntity) => Partial<ProductEntity>,
  ): Promise<Updated<ProductEntity> | null> {
    return updateWithLock(manager, ProductEntity, 'p', {
      keyColumn: 'p.id',
      key: id,
      expectedVersions,
      change,
    });
  }

  private live() {
    return this.products.createQueryBuilder('p').where('p.archived_at IS NULL');
  }

  private skuTaken(error: unknown, sku: string | undefined): ConflictProblem | undefined {
    if (violates(error, 'products_sku_unique')) {
      return new ConflictProblem(`sku ${sku} is already used by another product.`);
    }
    return undefined;
  }
}
