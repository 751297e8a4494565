import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../auth/principal';
import { CommitHook, inTransaction } from '../database/transaction';
import { Outbox } from '../events/outbox';
import { NotFoundProblem } from '../http/problems/problem';
import { Page } from '../http/pagination/page';
import type { PageRequest } from '../http/pagination/paginate';
import { UnknownOrderReferenceProblem } from '../orders/order-problems';
import { OrdersService } from '../orders/orders.service';
import type { ShipmentInput, ShipmentPatch } from './shipment-input';
import {
  MAX_SHIPMENTS_PER_ORDER,
  OrderNotReturnableProblem,
  OrderNotShippableProblem,
  ShipmentFinalProblem,
  TooManyShipmentsProblem,
} from './shipment-problems';
import { isShipmentFinal, SHIPMENT_LIFE, type OrderEffect } from './shipment-status';
import type { ShipmentEntity } from './shipment.entity';
import { toShipment } from './shipment.mapper';
import { ShipmentFilters, ShipmentsRepository } from './shipments.repository';

/**
 * Shipment use cases. A shipment and its order move together in one transaction: creating
 * one ships the order (stock leaves on-hand), delivering it delivers the order, cancelling
 * it returns the order to confirmed with its units back on hand and reserved. Fulfillment
 * and operations write shipments; customers read their own orders' shipments.
 */
@Injectable()
export class ShipmentsService {
  constructor(
    private readonly shipments: ShipmentsRepository,
    private readonly orders: OrdersService,
    private readonly outbox: Outbox,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(
    principal: Principal,
    filters: ShipmentFilters,
    page: PageRequest,
  ): Promise<Page<ShipmentEntity>> {
    return this.shipments.list(principal, filters, page);
  }

  async get(principal: Principal, id: string): Promise<ShipmentEntity> {
    return (await this.shipments.findVisibleTo(principal, id)) ?? notFound(id);
  }

  /** A shipment (label_created) of a confirmed order, which moves to shipped with it. */
  create(
    principal: Principal,
    input: ShipmentInput,
    commitHook?: CommitHook,
  ): Promise<ShipmentEntity> {
    return inTransaction(
      this.dataSource,
      async (manager) => {
        const order = await this.orders.findForUpdate(manager, input.orderId);
        if (!order) throw new UnknownOrderReferenceProblem(input.orderId);
        if (order.status !== 'confirmed') {
          throw new OrderNotShippableProblem(order.id, order.status);
        }
        if ((await this.shipments.countForOrder(manager, order.id)) >= MAX_SHIPMENTS_PER_ORDER) {
          throw new TooManyShipmentsProblem(order.id);
        }
        const shipment = await this.shipments.insert(manager, {
          id: uuidv7(),
          orderId: order.id,
          customerId: order.customerId,
          carrier: input.carrier,
          trackingNumber: input.trackingNumber,
          status: 'label_created',
        });
        await this.outbox.record(manager, 'shipment.created', toShipment(shipment));
        await this.orders.moveStatus(manager, order.id, 'shipped', principal.subject);
        return shipment;
      },
      commitHook,
    );
  }

  /**
   * PATCH: status, carrier, trackingNumber, all or nothing. A status the shipment already
   * has is no change; any other must be a transition of the table, and its effect on the
   * order is applied in the same transaction. Carrier and tracking number are final once
   * the shipment is delivered or cancelled.
   */
  update(
    principal: Principal,
    id: string,
    patch: ShipmentPatch,
    expectedVersions?: number[],
  ): Promise<ShipmentEntity> {
    return inTransaction(this.dataSource, async (manager) => {
      let effect: OrderEffect = 'none';
      const updated = await this.shipments.update(manager, id, expectedVersions, (current) => {
        const to = patch.status !== current.status ? patch.status : undefined;
        if (to !== undefined) {
          effect = SHIPMENT_LIFE.move(current.status, to);
        }
        const edits = {
          ...(patch.carrier !== undefined && patch.carrier !== current.carrier
            ? { carrier: patch.carrier }
            : {}),
          ...(patch.trackingNumber !== undefined && patch.trackingNumber !== current.trackingNumber
            ? { trackingNumber: patch.trackingNumber }
            : {}),
        };
        if (isShipmentFinal(current.status) && Object.keys(edits).length > 0) {
          throw new ShipmentFinalProblem(current.status, Object.keys(edits));
        }
        return { ...(to !== undefined ? { status: to } : {}), ...edits };
      });
      if (!updated) return notFound(id);
      if (!updated.changed) return updated.current;
      await this.outbox.record(manager, 'shipment.updated', toShipment(updated.current));
      await this.applyToOrder(manager, updated.current.orderId, effect, principal.subject);
      return updated.current;
    });
  }

  /** What a shipment's transition does to its order, under the order's row lock. */
  private async applyToOrder(
    manager: EntityManager,
    orderId: string,
    effect: OrderEffect,
    actor: string,
  ): Promise<void> {
    if (effect === 'none') return;
    const order = await this.orders.findForUpdate(manager, orderId);
    if (!order) throw new Error(`shipment of a missing order ${orderId}`);
    switch (effect) {
      case 'deliver':
        // Staff may have marked the order delivered through /orders/{id}/status already.
        if (order.status !== 'delivered') {
          await this.orders.moveStatus(manager, orderId, 'delivered', actor);
        }
        return;
      case 'return':
        if (order.status !== 'shipped') throw new OrderNotReturnableProblem(orderId, order.status);
        await this.orders.returnFromShipment(manager, orderId, actor);
        return;
    }
  }
}

function notFound(id: string): never {
  throw new NotFoundProblem('shipment', id);
}
