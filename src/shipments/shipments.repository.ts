import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ownedBy } from '../auth/ownership';
import type { Principal } from '../auth/principal';
import { type Updated, updateWithLock } from '../database/update-with-lock';
import type { CollectionSpec } from '../http/pagination/collection-spec';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { Page } from '../http/pagination/page';
import { paginate, PageRequest } from '../http/pagination/paginate';
import type { ShipmentStatus } from './shipment-status';
import { ShipmentEntity } from './shipment.entity';

export interface ShipmentFilters {
  status?: ShipmentStatus;
  orderId?: string;
}

const ID = { column: 's.id', property: 'id', kind: 'string' } as const;

export const SHIPMENTS: CollectionSpec = {
  name: 'shipments',
  counted: 'shipments',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    createdAt: { column: 's.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 's.updated_at', property: 'updatedAt', kind: 'date' },
    status: { column: 's.status', property: 'status', kind: 'string' },
  },
};

/**
 * All SQL about shipments. Reads take the caller: a customer's queries are scoped to the
 * shipments of its own orders (the order's customerId is kept on the shipment).
 */
@Injectable()
export class ShipmentsRepository {
  constructor(
    @InjectRepository(ShipmentEntity) private readonly shipments: Repository<ShipmentEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  /** One shipment; null when it does not exist for `principal`. */
  findVisibleTo(principal: Principal, id: string): Promise<ShipmentEntity | null> {
    return ownedBy(principal, this.shipments.createQueryBuilder('s'), 's.customer_id')
      .andWhere('s.id = :id', { id })
      .getOne();
  }

  list(
    principal: Principal,
    filters: ShipmentFilters,
    page: PageRequest,
  ): Promise<Page<ShipmentEntity>> {
    const qb = ownedBy(principal, this.all(), 's.customer_id');
    if (filters.status !== undefined) qb.andWhere('s.status = :status', filters);
    if (filters.orderId !== undefined) qb.andWhere('s.order_id = :orderId', filters);
    return paginate(qb, SHIPMENTS, page, this.cursors, this.all());
  }

  /** Every shipment: the list's query before filters and ownership narrow it. */
  private all() {
    return this.shipments.createQueryBuilder('s');
  }

  /** How many shipments an order has had, cancelled ones included. */
  countForOrder(manager: EntityManager, orderId: string): Promise<number> {
    return manager.countBy(ShipmentEntity, { orderId });
  }

  async insert(
    manager: EntityManager,
    shipment: Omit<ShipmentEntity, 'version' | 'createdAt' | 'updatedAt'>,
  ): Promise<ShipmentEntity> {
    await manager.insert(ShipmentEntity, shipment);
    return manager.findOneByOrFail(ShipmentEntity, { id: shipment.id });
  }

  /**
   * Locks the shipment, checks If-Match, applies `change` (computed from the locked row),
   * writes it and bumps the version; a change that changes nothing keeps the version. Null
   * when there is no such shipment.
   */
  update(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
    change: (current: ShipmentEntity) => Partial<ShipmentEntity> | Promise<Partial<ShipmentEntity>>,
  ): Promise<Updated<ShipmentEntity> | null> {
    return updateWithLock(manager, ShipmentEntity, 's', {
      keyColumn: 's.id',
      key: id,
      expectedVersions,
      archivable: false,
      change,
    });
  }
}
