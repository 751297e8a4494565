import { ApiProperty } from '@nestjs/swagger';
import { ApiVersionProperty } from '../../http/routing/openapi.decorators';
import { SHIPMENT_STATUSES, type ShipmentStatus } from '../shipment-status';
import { MAX_CARRIER_LENGTH, MAX_TRACKING_NUMBER_LENGTH } from './shipment-write.dto';

// Answers have no validators to document their bounds from: the @ApiProperty options
// state what the write DTOs and the database enforce (doc only).

/** A shipment; the same in every API version (it holds no money). */
export class ShipmentDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  /** The shipped order. */
  @ApiProperty({ format: 'uuid' })
  orderId: string;
  /**
   * The order's customer.
   * @example "cus_8a41f2"
   */
  @ApiProperty({ minLength: 1, maxLength: 64 })
  customerId: string;
  /** @example "DHL" */
  @ApiProperty({ minLength: 1, maxLength: MAX_CARRIER_LENGTH })
  carrier: string;
  /** @example "00340434161094042557" */
  @ApiProperty({
    type: 'string',
    nullable: true,
    minLength: 1,
    maxLength: MAX_TRACKING_NUMBER_LENGTH,
  })
  trackingNumber: string | null;
  @ApiProperty({ enum: SHIPMENT_STATUSES, example: 'label_created' })
  status: ShipmentStatus;
  /** Grows by one with every change; the ETag is this number. */
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}
