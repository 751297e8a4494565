import type { OrderCreateDto, OrderPatchDto, ShippingAddressDto } from './dto/order-write.dto';
import type { ShippingAddress } from './order.entity';

/** A new order as a client describes it (the same in every API version). */
export interface OrderInput {
  lines: { sku: string; quantity: number }[];
  shippingAddress: ShippingAddress;
  notes: string | null;
  /** required from staff; a customer's own when omitted */
  customerId?: string;
}

/** PATCH /orders/{id}: only the fields sent. */
export interface OrderPatch {
  shippingAddress?: ShippingAddress;
  notes?: string | null;
}

/** Request bodies are the same in every API version: they carry no money. */
export function orderInputFrom(dto: OrderCreateDto): OrderInput {
  return {
    lines: dto.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })),
    shippingAddress: addressFrom(dto.shippingAddress),
    notes: dto.notes ?? null,
    ...(dto.customerId !== undefined ? { customerId: dto.customerId } : {}),
  };
}

export function orderPatchFrom(dto: OrderPatchDto): OrderPatch {
  return {
    ...(dto.notes !== undefined ? { notes: dto.notes } : {}),
    ...(dto.shippingAddress !== undefined
      ? { shippingAddress: addressFrom(dto.shippingAddress) }
      : {}),
  };
}

function addressFrom(dto: ShippingAddressDto): ShippingAddress {
  return {
    name: dto.name,
    line1: dto.line1,
    line2: dto.line2 ?? null,
    city: dto.city,
    postalCode: dto.postalCode,
    country: dto.country,
  };
}
