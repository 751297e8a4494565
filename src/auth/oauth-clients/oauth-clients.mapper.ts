import type { OAuthClientCreatedDto, OAuthClientDto } from './dto/oauth-client.dto';
import { grantTypesOf } from './oauth-client-rules';
import type { OAuthClientEntity } from './oauth-client.entity';

/** Every version shows a client alike; never its secret's hash. */
export function toOAuthClient(c: OAuthClientEntity): OAuthClientDto {
  return {
    id: c.id,
    clientId: c.clientId,
    name: c.name,
    redirectUris: c.redirectUris,
    public: c.public,
    scopes: c.scopes,
    grantTypes: grantTypesOf(c),
    version: c.version,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** The registration answer: a confidential client's secret, this once. */
export function toCreatedOAuthClient(
  c: OAuthClientEntity,
  secret: string | undefined,
): OAuthClientCreatedDto {
  return { ...toOAuthClient(c), ...(secret !== undefined ? { clientSecret: secret } : {}) };
}
