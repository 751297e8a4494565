import type { ShipmentCreateDto, ShipmentPatchDto } from './dto/shipment-write.dto';
import type { ShipmentStatus } from './shipment-status';

/** A new shipment as a client describes it (the same in every API version). */
export interface ShipmentInput {
  orderId: string;
  carrier: string;
  trackingNumber: string | null;
}

/** PATCH /shipments/{id}: only the fields sent. */
export interface ShipmentPatch {
  status?: ShipmentStatus;
  carrier?: string;
  trackingNumber?: string | null;
}

export function shipmentInputFrom(dto: ShipmentCreateDto): ShipmentInput {
  return { orderId: dto.orderId, carrier: dto.carrier, trackingNumber: dto.trackingNumber ?? null };
}

export function shipmentPatchFrom(dto: ShipmentPatchDto): ShipmentPatch {
  return {
    ...(dto.status !== undefined ? { status: dto.status } : {}),
    ...(dto.carrier !== undefined ? { carrier: dto.carrier } : {}),
    ...(dto.trackingNumber !== undefined ? { trackingNumber: dto.trackingNumber } : {}),
  };
}
