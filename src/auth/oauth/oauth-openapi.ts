import type { DocumentBuilder } from '@nestjs/swagger';
import type { AppConfig } from '../../config/app-config';
import { GRANTABLE_PERMISSIONS } from '../oauth-clients/oauth-client-rules';
import { OAUTH_PATH } from './oauth-urls';
import { ACCESS_TOKEN_TTL_S } from './provider-configuration';

const DESCRIPTION = `OAuth 2.0 at the built-in authorization server (\`${OAUTH_PATH}\`, metadata at \`/.well-known/oauth-authorization-server\`): the authorization code flow with PKCE (\`S256\` only; \`plain\` and requests without a challenge are refused) for apps acting for a signed-in user, and the client credentials flow (HTTP Basic, \`client_secret_basic\`) for confidential clients acting on their own; a client credentials request without \`scope\` gets every scope the client is registered for, and no refresh token (ask for a new token instead). Its access tokens are RFC 9068 JWTs (\`typ: at+jwt\`, ES256, ${ACCESS_TOKEN_TTL_S / 60} minutes), validated per RFC8725 (JWT best current practices): signature, \`iss\`, \`aud\`, \`exp\`, \`nbf\`, \`typ\`. The scopes are the permissions; a token can do what both its user's roles and its scopes allow. The docs UI signs in as the public client \`commerce-api-docs\`; other clients are registered through \`/oauth-clients\`.`;

type SecuritySchemeObject = NonNullable<Parameters<DocumentBuilder['addOAuth2']>[0]>;

/**
 * The OAuth2 security scheme of the OpenAPI documents (API.md §12): the built-in server's
 * endpoints, absolute when PUBLIC_URL is https (as the `servers` entry), relative to the
 * host that serves the document otherwise; every grantable permission as a scope, in
 * both flows the server supports (API.md §2).
 */
export function oauth2Scheme(config: AppConfig): SecuritySchemeObject {
  const origin = config.publicUrl?.startsWith('https://') ? config.publicUrl : '';
  const tokenUrl = `${origin}${OAUTH_PATH}/token`;
  const scopes = Object.fromEntries(
    GRANTABLE_PERMISSIONS.map((permission) => {
      const [resource, access] = permission.split(':');
      return [permission, `${access === 'read' ? 'Read' : 'Create and change'} ${resource}`];
    }),
  );
  return {
    type: 'oauth2',
    description: DESCRIPTION,
    flows: {
      authorizationCode: {
        authorizationUrl: `${origin}${OAUTH_PATH}/auth`,
        tokenUrl,
        refreshUrl: tokenUrl,
        scopes,
      },
      // The contract wants a refreshUrl on every flow (API.md §12); this grant issues no
      // refresh token, and the token endpoint is where one would be used.
      clientCredentials: { tokenUrl, refreshUrl: tokenUrl, scopes },
    },
  };
}
