import { IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { OffsetListQueryDto } from '../../../http/pagination/list-query.dto';
import { type Role, ROLES } from '../../permissions';

/** Filters of the users collection. */
export class UserFiltersDto {
  /** Users holding this role. */
  @IsOptional()
  @IsString()
  @IsIn(ROLES)
  role?: Role;

  /** The user with this email (case-insensitive). */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.trim().toLowerCase() : value,
  )
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email?: string;
}

/** `page` is refused on /api/v2 (cursor-only) by the one rule in http/. */
export class ListUsersDto extends IntersectionType(OffsetListQueryDto, UserFiltersDto) {}
