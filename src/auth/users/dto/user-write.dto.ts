import { ApiProperty, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
} from 'class-validator';
import { MAX_ROLES, type Role, ROLES } from '../../permissions';
import { IsUserEmail } from '../user-email';
import { IsLine } from '../../../common/dto/text';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/** POST body of /users. */
export class UserCreateDto {
  /**
   * Sign-in name; unique, compared and stored lowercased. An ASCII address taken as sent
   * (never trimmed): a dot-atom local part of at most 64 characters (no quoted local
   * part), `@`, and a domain name of letter-digit-hyphen labels whose last one is letters
   * or an `xn--` A-label (the pattern).
   * @example "ada@example.com"
   */
  @IsUserEmail()
  email: string;

  /**
   * Write-only: stored only as a memory-hard (scrypt) hash and never returned by any
   * operation. 12 to 256 characters.
   * @example "correct horse battery staple"
   */
  @ApiProperty({ writeOnly: true, format: 'password' })
  @IsString()
  @Length(MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH)
  password: string;

  /**
   * What the user may do (the role table of the authentication guide). `customer` stands
   * alone: a customer's customerId is its user id, and it sees only its own rows.
   * @example ["operations"]
   */
  @ApiProperty({
    enum: ROLES,
    isArray: true,
    minItems: 1,
    maxItems: MAX_ROLES,
    uniqueItems: true,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROLES)
  @ArrayUnique()
  @IsIn(ROLES, { each: true })
  roles: Role[];

  /**
   * Display name; omitted or null means none.
   * @example "Ada Lovelace"
   */
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @IsLine()
  name?: string | null;
}

/** PATCH body of /users: any subset; a new password replaces the old one. */
export class UserPatchDto extends PartialType(UserCreateDto, { skipNullProperties: false }) {}
