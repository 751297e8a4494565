import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { OffsetListQueryDto } from '../../../http/pagination/list-query.dto';
import { type Role, ROLES } from '../../permissions';
import { IsUserEmail } from '../user-email';

/** Filters of the users collection. */
export class UserFiltersDto {
  /** Users holding this role. */
  @IsOptional()
  @IsString()
  @IsIn(ROLES)
  role?: Role;

  /**
   * The user with this email (case-insensitive): an address as users have them (the
   * pattern), with no surrounding whitespace.
   */
  @IsOptional()
  @IsUserEmail()
  email?: string;
}

/** `page` is refused on /api/v2 (cursor-only) by the one rule in http/. */
export class ListUsersDto extends IntersectionType(OffsetListQueryDto, UserFiltersDto) {}
