import type { ClientMetadata } from 'oidc-provider';
import {
  GRANTABLE_PERMISSIONS,
  grantTypesOf,
  isGrantable,
} from '../oauth-clients/oauth-client-rules';
import type { OAuthClientEntity } from '../oauth-clients/oauth-client.entity';
import { SIGNING_ALG } from './signing-keys';

/** OpenID scopes every client may ask for besides its permissions. */
export const OIDC_SCOPES = ['openid', 'offline_access'];

/** The client id of the docs UI (Swagger UI), a public client every deployment has. */
export const DOCS_CLIENT_ID = 'commerce-api-docs';

/** Where Swagger UI receives the code: the page @nestjs/swagger serves beside /docs. */
export const docsRedirectUri = (origin: string): string => `${origin}/docs/oauth2-redirect.html`;

/**
 * Where Swagger UI sends the code when it does not know its own URL (no PUBLIC_URL) and is
 * opened at `/docs`: its default is the sibling path `/oauth2-redirect.html`, which the
 * authorization server's hook forwards to the real page.
 */
export const DOCS_FALLBACK_REDIRECT_PATH = '/oauth2-redirect.html';

/**
 * A registered client as oidc-provider takes it (RFC 7591 metadata). A confidential
 * client's `client_secret` is the hash of its secret: the server compares hashes (see
 * `OAuthServer`), so the secret itself is stored nowhere.
 */
export function clientMetadata(client: OAuthClientEntity): ClientMetadata {
  const grantTypes = grantTypesOf(client);
  return {
    client_id: client.clientId,
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    // oidc-provider refuses to load a client with a scope it does not know (events:write)
    scope: [...OIDC_SCOPES, ...client.scopes.filter(isGrantable)].join(' '),
    id_token_signed_response_alg: SIGNING_ALG,
    ...(client.public
      ? { token_endpoint_auth_method: 'none' }
      : {
          token_endpoint_auth_method: 'client_secret_basic',
          client_secret: client.secretHash ?? '',
        }),
  };
}

/** The docs UI's client: public, PKCE, every permission, back to /docs on this origin. */
export function docsClientMetadata(origin: string): ClientMetadata {
  return {
    client_id: DOCS_CLIENT_ID,
    client_name: 'API documentation (Swagger UI)',
    redirect_uris: [docsRedirectUri(origin), `${origin}${DOCS_FALLBACK_REDIRECT_PATH}`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: [...OIDC_SCOPES, ...GRANTABLE_PERMISSIONS].join(' '),
    token_endpoint_auth_method: 'none',
    id_token_signed_response_alg: SIGNING_ALG,
  };
}
