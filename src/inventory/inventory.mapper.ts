import type { AdjustmentDto, InventoryItemDto } from './dto/inventory.dto';
import type { InventoryAdjustmentEntity } from './inventory-adjustment.entity';
import type { InventoryItemEntity } from './inventory-item.entity';

const available = (onHand: number, reserved: number) => Math.max(0, onHand - reserved);

export function toInventoryItem(i: InventoryItemEntity): InventoryItemDto {
  return {
    sku: i.sku,
    productId: i.productId,
    quantityOnHand: i.quantityOnHand,
    quantityReserved: i.quantityReserved,
    quantityAvailable: available(i.quantityOnHand, i.quantityReserved),
    reorderLevel: i.reorderLevel,
    version: i.version,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

export function toAdjustment(a: InventoryAdjustmentEntity): AdjustmentDto {
  return {
    id: a.id,
    sku: a.sku,
    delta: a.delta,
    reason: a.reason,
    quantityOnHand: a.quantityOnHand,
    quantityReserved: a.quantityReserved,
    quantityAvailable: available(a.quantityOnHand, a.quantityReserved),
    version: 1,
    createdAt: a.createdAt,
    updatedAt: a.createdAt,
  };
}
