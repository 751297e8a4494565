import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { UUID_MESSAGE, UUID_PATTERN } from '../../common/dto/uuid';
import { IsOmittable } from '../../common/dto/omittable';
import { SHIPMENT_STATUSES, type ShipmentStatus } from '../shipment-status';
import { IsLine } from '../../common/dto/text';

export const MAX_CARRIER_LENGTH = 100;
export const MAX_TRACKING_NUMBER_LENGTH = 100;

/** POST body of /shipments (the same in every API version). */
export class ShipmentCreateDto {
  /**
   * The order to ship; it must be confirmed, and it moves to shipped. An id that names no
   * order is 422.
   * @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11"
   */
  @ApiProperty({ format: 'uuid' })
  @IsString()
  @Matches(UUID_PATTERN, { message: UUID_MESSAGE })
  orderId: string;

  /**
   * Who carries the parcel.
   * @example "DHL"
   */
  @IsString()
  @Length(1, MAX_CARRIER_LENGTH)
  @IsLine()
  carrier: string;

  /**
   * The carrier's tracking number; omitted or null means none yet.
   * @example "00340434161094042557"
   */
  @IsOptional()
  @IsString()
  @Length(1, MAX_TRACKING_NUMBER_LENGTH)
  @IsLine()
  trackingNumber?: string | null;
}

/**
 * PATCH body of /shipments/{id}: any subset. `status` moves the shipment (label_created →
 * in_transit → delivered; label_created → cancelled) and its order with it; carrier and
 * tracking number change until the shipment is delivered or cancelled.
 */
export class ShipmentPatchDto {
  /**
   * The status to move to; the current one is no change.
   * @example "in_transit"
   */
  @IsOmittable()
  @IsString()
  @IsIn(SHIPMENT_STATUSES)
  status?: ShipmentStatus;

  /** @example "UPS" */
  @IsOmittable()
  @IsString()
  @Length(1, MAX_CARRIER_LENGTH)
  @IsLine()
  carrier?: string;

  /**
   * null clears it.
   * @example "1Z999AA10123456784"
   */
  @IsOptional()
  @IsString()
  @Length(1, MAX_TRACKING_NUMBER_LENGTH)
  @IsLine()
  trackingNumber?: string | null;
}
