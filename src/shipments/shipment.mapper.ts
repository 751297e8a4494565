import type { ShipmentDto } from './dto/shipment.dto';
import type { ShipmentEntity } from './shipment.entity';

/** Shipments look the same in every API version (they hold no money). */
export function toShipment(s: ShipmentEntity): ShipmentDto {
  return {
    id: s.id,
    orderId: s.orderId,
    customerId: s.customerId,
    carrier: s.carrier,
    trackingNumber: s.trackingNumber,
    status: s.status,
    version: s.version,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
