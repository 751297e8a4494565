import type { DocumentBuilder } from '@nestjs/swagger';
import type { AppConfig } from '../../config/app-config';
import { ALL_PERMISSIONS } from '../oauth-clients/oauth-client-rules';
import { OAUTH_PATH } from './oauth-urls';
import { ACCESS_TOKEN_TTL_S } from './provider-configuration';

const DESCRIPTION = `OAuth 2.0 authorization code flow with PKCE (\`S256\` only; \`plain\` and requests without a challenge are refused) at the built-in authorization server (\`${OAUTH_PATH}\`, metadata at \`/.well-known/oauth-authorization-server\`). Its access tokens are RFC 9068 JWTs (\`typ: at+jwt\`, ES256, ${ACCESS_TOKEN_TTL_S / 60} minutes), validated per RFC8725 (JWT best current practices): signature, \`iss\`, \`aud\`, \`exp\`, \`nbf\`, \`typ\`. The scopes are the permissions; a token can do what both its user's roles and its scopes allow. The docs UI signs in as the public client \`commerce-api-docs\`; other clients are registered through \`/oauth-clients\`, and confidential ones may also use the client credentials grant at the same token endpoint.`;

type SecuritySchemeObject = NonNullable<Parameters<DocumentBuilder['addOAuth2']>[0]>;

/**
 * The OAuth2 security scheme of the OpenAPI documents (API.md §12): the built-in server's
 * endpoints, absolute when PUBLIC_URL is https (as the `servers` entry), relative to the
 * host that serves the document otherwise; every permission as a scope.
 */
export function oauth2Scheme(config: AppConfig): SecuritySchemeObject {
  const origin = config.publicUrl?.startsWith('https://') ? config.publicUrl : '';
  const tokenUrl = `${origin}${OAUTH_PATH}/token`;
  return {
    type: 'oauth2',
    description: DESCRIPTION,
    flows: {
      authorizationCode: {
        authorizationUrl: `${origin}${OAUTH_PATH}/auth`,
        tokenUrl,
        refreshUrl: tokenUrl,
        scopes: Object.fromEntries(
          ALL_PERMISSIONS.map((permission) => {
            const [resource, access] = permission.split(':');
            return [permission, `${access === 'read' ? 'Read' : 'Create and change'} ${resource}`];
          }),
        ),
      },
    },
  };
}
