import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { UUID_MESSAGE, UUID_PATTERN } from '../../common/dto/uuid';
import { OffsetListQueryDto } from '../../http/pagination/list-query.dto';
import { SHIPMENT_STATUSES, type ShipmentStatus } from '../shipment-status';

/**
 * Paging and filters of the shipments collection (API.md §4). Shipments hold no money, so
 * v1 and v2 share this; `page` is refused in /api/v2 for every collection in one place.
 */
export class ListShipmentsDto extends OffsetListQueryDto {
  @IsOptional()
  @IsString()
  @IsIn(SHIPMENT_STATUSES)
  status?: ShipmentStatus;

  /** Shipments of this order only. */
  @ApiProperty({ format: 'uuid' })
  @IsOptional()
  @IsString()
  @Matches(UUID_PATTERN, { message: UUID_MESSAGE })
  orderId?: string;
}
