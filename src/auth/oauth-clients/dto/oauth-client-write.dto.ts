import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsOmittable } from '../../../common/dto/omittable';
import type { Permission } from '../../permissions';
import { ALL_PERMISSIONS, MAX_REDIRECT_URIS, REDIRECT_URI_PATTERN } from '../oauth-client-rules';
import { IsLine } from '../../../common/dto/text';

/** The items of `redirectUris`, documented as validated (the `each` rules below). */
const REDIRECT_URI_ITEMS = {
  type: 'string',
  format: 'uri',
  maxLength: 2000,
  pattern: REDIRECT_URI_PATTERN.source,
} as const;

/** POST body of /oauth-clients. */
export class OAuthClientCreateDto {
  /**
   * Shown to people on the sign-in page ("to continue to ...").
   * @example "Warehouse dashboard"
   */
  @IsString()
  @Length(1, 200)
  @IsLine()
  name: string;

  /**
   * Where the authorization server may send the user back with a code, compared exactly
   * (no wildcards, no prefix match). https, or http on a loopback host for development.
   * Empty for a confidential client that only uses client credentials.
   * @example ["https://dashboard.example.com/callback"]
   */
  @ApiProperty({ type: 'array', items: REDIRECT_URI_ITEMS })
  @IsArray()
  @ArrayMaxSize(MAX_REDIRECT_URIS)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  @Matches(REDIRECT_URI_PATTERN, {
    each: true,
    message: 'must be an absolute http(s) URI (RFC 3986) without a fragment',
  })
  redirectUris: string[];

  /**
   * true for a client that cannot keep a secret (a browser or native app): it gets no
   * secret and proves itself with PKCE. false for a server-side client: it gets a secret,
   * once, and may also use the client credentials grant.
   */
  @IsBoolean()
  public: boolean;

  /**
   * The permissions the client may ask for, as OAuth scopes. A token carries the ones its
   * request asked for, narrowed to what the user's roles allow. `events:write` is accepted,
   * as it always was, but grants nothing: no operation writes events, so the authorization
   * server does not offer it and no token carries it.
   */
  @ApiProperty({
    enum: ALL_PERMISSIONS,
    isArray: true,
    minItems: 1,
    maxItems: ALL_PERMISSIONS.length,
    uniqueItems: true,
    example: ['products:read', 'orders:read'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ALL_PERMISSIONS.length)
  @ArrayUnique()
  @IsString({ each: true })
  @IsIn(ALL_PERMISSIONS, { each: true })
  scopes: Permission[];
}

/** PATCH body of /oauth-clients/{id}: the fields sent change. Whether a client is public cannot. */
export class OAuthClientPatchDto {
  /** @example "Warehouse dashboard" */
  @IsOmittable()
  @IsString()
  @Length(1, 200)
  @IsLine()
  name?: string;

  /**
   * Replaces the whole list; compared exactly.
   * @example ["https://dashboard.example.com/callback"]
   */
  @ApiProperty({ type: 'array', items: REDIRECT_URI_ITEMS, required: false })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(MAX_REDIRECT_URIS)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  @Matches(REDIRECT_URI_PATTERN, {
    each: true,
    message: 'must be an absolute http(s) URI (RFC 3986) without a fragment',
  })
  redirectUris?: string[];

  /**
   * Replaces the whole list. Refresh tokens already issued keep their scopes until they
   * are used; a new access token never carries more than the client may ask for.
   * `events:write` is accepted but grants nothing (see creation).
   */
  @ApiProperty({
    required: false,
    enum: ALL_PERMISSIONS,
    isArray: true,
    minItems: 1,
    maxItems: ALL_PERMISSIONS.length,
    uniqueItems: true,
    example: ['products:read'],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ALL_PERMISSIONS.length)
  @ArrayUnique()
  @IsString({ each: true })
  @IsIn(ALL_PERMISSIONS, { each: true })
  scopes?: Permission[];
}
