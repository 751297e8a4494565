import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { OffsetListQueryDto } from '../../../http/pagination/list-query.dto';
import { type Role, ROLES } from '../../permissions';

/** Filters of the api-keys collection. */
export class ApiKeyFiltersDto {
  /** Keys of this role only. */
  @IsOptional()
  @IsString()
  @IsIn(ROLES)
  role?: Role;

  /** Keys acting for this customer only. */
  @IsOptional()
  @IsString()
  @Length(1, 64)
  customerId?: string;
}

/** `page` is refused on /api/v2 (cursor-only) by the one rule in http/. */
export class ListApiKeysDto extends IntersectionType(OffsetListQueryDto, ApiKeyFiltersDto) {}
