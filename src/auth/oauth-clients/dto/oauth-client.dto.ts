import { ApiProperty } from '@nestjs/swagger';
import { ApiVersionProperty } from '../../../http/routing/openapi.decorators';
import type { Permission } from '../../permissions';
import { ALL_PERMISSIONS, MAX_REDIRECT_URIS } from '../oauth-client-rules';
import { CLIENT_SECRET_PATTERN } from '../oauth-client-secret';

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;

// Answers have no validators to document their bounds from: the @ApiProperty options
// state what the write DTO and the columns allow (doc only).

/** A client of the built-in authorization server, as every version shows it. */
export class OAuthClientDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  @ApiProperty({ format: 'uuid' })
  id: string;
  /**
   * The OAuth `client_id` the client sends to the authorization server.
   * @example "cli_Q2xpZW50SWRFeGFtcGxlMD"
   */
  @ApiProperty({ minLength: 1, maxLength: 64, pattern: '^cli_[A-Za-z0-9_-]{22}$' })
  clientId: string;
  /** @example "Warehouse dashboard" */
  @ApiProperty({ minLength: 1, maxLength: 200 })
  name: string;
  /** Compared exactly with an authorization request's `redirect_uri`. */
  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'uri', maxLength: 2000 },
    maxItems: MAX_REDIRECT_URIS,
    example: ['https://dashboard.example.com/callback'],
  })
  redirectUris: string[];
  /** A public client has no secret and must use PKCE (S256). */
  public: boolean;
  /**
   * The permissions the client may ask for, as scopes; `events:write`, which no operation
   * uses, grants nothing.
   */
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ALL_PERMISSIONS },
    maxItems: ALL_PERMISSIONS.length,
    example: ['products:read', 'orders:read'],
  })
  scopes: Permission[];
  /**
   * What the client may do at the token endpoint: `authorization_code` and `refresh_token`
   * when it has redirect URIs, `client_credentials` when it is confidential.
   */
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...GRANT_TYPES] },
    maxItems: GRANT_TYPES.length,
    example: ['authorization_code', 'refresh_token'],
  })
  grantTypes: (typeof GRANT_TYPES)[number][];
  /** Grows by one with every change; the ETag is this number. */
  @ApiVersionProperty()
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The answer to registering a client: a confidential client's secret, shown this once. */
export class OAuthClientCreatedDto extends OAuthClientDto {
  /**
   * Write-once secret of a confidential client, for HTTP Basic authentication at the token
   * endpoint (`client_secret_basic`, the one method confidential clients use). It appears in this answer
   * only and only its SHA-256 hash is stored: keep it now. Absent for a public client, and
   * from a replay of this answer for the same `Idempotency-Key`.
   * @example "cs_3q2-7wEfZ8c1rYtVb0nXk4mLs9aPdGh6JuI5oTe2WzQ"
   */
  @ApiProperty({ required: false, pattern: CLIENT_SECRET_PATTERN.source, maxLength: 46 })
  clientSecret?: string;
}
