import type {
  AccessToken,
  Client,
  ClientCredentials,
  Configuration,
  KoaContextWithOIDC,
  ResourceServer,
} from 'oidc-provider';
import { errors, interactionPolicy } from 'oidc-provider';
import { holdsNul, NUL_MESSAGE } from '../../http/input/nul-character';
import type { UsersService } from '../users/users.service';
import { errorPage } from './login-page';
import { GRANTABLE_PERMISSIONS } from '../oauth-clients/oauth-client-rules';
import { docsClientMetadata, OIDC_SCOPES } from './oauth-client-metadata';
import { reachingDatabase } from './oauth-unavailable';
import { apiAudience, OAUTH_PATH } from './oauth-urls';
import { SIGNING_ALG } from './signing-keys';
import type { PrivateSigningJwk } from './signing-keys.repository';

/** Access tokens live 15 minutes: a JWT cannot be revoked, so it must expire soon. */
export const ACCESS_TOKEN_TTL_S = 15 * 60;
const REFRESH_TOKEN_TTL_S = 14 * 24 * 3600;
const SESSION_TTL_S = 8 * 3600;

const PERMISSION_SCOPE = /^[a-z-]+:(read|write)$/;

/** The permissions among a client's registered scopes (the rest are OpenID's). */
export const permissionScopesOf = (client: Pick<Client, 'scope'>): string[] =>
  (client.scope ?? '').split(' ').filter((s) => PERMISSION_SCOPE.test(s));

/**
 * The roles a client-credentials token acts with. Such a token has no user: the client acts
 * for the admin who registered it, and its scopes (chosen by that admin, at most the
 * client's registered ones) are all it can do.
 */
const CLIENT_CREDENTIALS_ROLES = ['admin'];

export interface ProviderDependencies {
  /** PUBLIC_URL, or the origin requests for this provider come in on */
  origin: string;
  jwks: { keys: PrivateSigningJwk[] };
  cookieKeys: string[];
  adapter: NonNullable<Configuration['adapter']>;
  users: Pick<UsersService, 'findById'>;
}

/**
 * oidc-provider's configuration (DESIGN.md §2): authorization code with mandatory PKCE
 * S256, refresh tokens, client credentials; access tokens are RFC 9068 JWTs for this API
 * (resource indicators, ES256) carrying the user's current roles; no development
 * interactions, no dynamic registration; every HTML page self-contained.
 */
export function providerConfiguration(deps: ProviderDependencies): Configuration {
  const audience = apiAudience(deps.origin);
  const resourceServer = (scopes: string[]): ResourceServer => ({
    scope: scopes.join(' '),
    audience,
    accessTokenFormat: 'jwt',
    accessTokenTTL: ACCESS_TOKEN_TTL_S,
    jwt: { sign: { alg: SIGNING_ALG } },
  });

  return {
    adapter: deps.adapter,
    clients: [docsClientMetadata(deps.origin)],
    clientAuthMethods: ['client_secret_basic', 'none'],
    // Browsers reach the token endpoint cross-origin only from a public client's own
    // origin (one of its redirect URIs), once CORS_ORIGINS has let that origin through.
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => new URL(uri).origin === origin),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: SIGNING_ALG,
    },
    cookies: {
      keys: deps.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    enabledJWA: { idTokenSigningAlgValues: [SIGNING_ALG] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // A client revokes its own refresh tokens only (RFC 7009 §2.1).
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      // Tokens are plain bearer tokens: the API does not check proof-of-possession.
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // Every token is for this API, whether or not the client names it.
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => {
          if (resource !== audience) throw new errors.InvalidTarget();
          return resourceServer(permissionScopesOf(client));
        },
      },
    },
    extraTokenClaims: async (_ctx, token: AccessToken | ClientCredentials) => {
      const accountId = 'accountId' in token ? token.accountId : undefined;
      if (accountId === undefined) return { roles: CLIENT_CREDENTIALS_ROLES };
      const user = await reachingDatabase(deps.users.findById(accountId));
      return { roles: user ? [...user.roles] : [] };
    },
    findAccount: async (_ctx, sub) => {
      const user = await reachingDatabase(deps.users.findById(sub));
      if (!user) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id }) };
    },
    // No `email` scope: no client is registered for it, so discovery would advertise a
    // scope every request for it is refused (and there is no userinfo endpoint).
    claims: { openid: ['sub'] },
    // The permissions are scopes of this API (the resource server) and are listed too, so
    // discovery advertises them and a client asking for one it was not given is refused.
    scopes: [...OIDC_SCOPES, ...GRANTABLE_PERMISSIONS],
    // Runs on every authorization request and pushed one, `scope` or not (a validator may
    // set defaults).
    extraParams: { scope: checkAuthorizationParams },
    interactions: {
      policy: signInPolicy(),
      url: (_ctx, interaction) => interactionPath(interaction.uid),
    },
    jwks: deps.jwks,
    pkce: { required: () => true },
    responseTypes: ['code'],
    // The code flow always yields a refresh token (no `offline_access` needed): clients
    // such as Swagger UI ask for permissions only.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      ClientCredentials: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: REFRESH_TOKEN_TTL_S,
      Session: SESSION_TTL_S,
      Interaction: 3600,
    },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(out.error, out.error_description);
    },
  };
}

/**
 * What oidc-provider does not check of an authorization request (sent to `/auth` or
 * pushed to `/request`):
 *
 * - A value holding U+0000 is `invalid_request`. `/auth`'s query never gets here with one
 *   (request-target.ts refuses it first), but a pushed request's form body does, and its
 *   values are stored (the interaction, the code) as jsonb, which cannot hold it: the
 *   request failed later with a 500.
 * - RFC 6749 §3.3: a request that omits `scope` gets a default or fails. One that asks
 *   for no permission (`scope=openid`, as a generic OpenID client does, or no scope at
 *   all) asks for every permission the client is registered for, as a client-credentials
 *   request does (api-provider.ts); consent narrows them to the user's roles. Without it
 *   such a request ended in a token without `scope`, refused by every operation, where
 *   API.md §2 gives every access token one.
 */
function checkAuthorizationParams(
  ctx: KoaContextWithOIDC,
  scope: string | undefined,
  client: Client,
): void {
  const params = ctx.oidc.params as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' && holdsNul(value)) {
      throw new errors.InvalidRequest(`${name} ${NUL_MESSAGE}`);
    }
  }
  const requested = (scope ?? '').split(' ').filter((value) => value !== '');
  if (requested.some((value) => PERMISSION_SCOPE.test(value))) return;
  params.scope = [...requested, ...permissionScopesOf(client)].join(' ');
}

/**
 * oidc-provider's prompts, and one more reason to sign in: the session's user no longer
 * exists (deleted since). oidc-provider loads no account and so no grant for it, and its
 * consent check then failed on the missing grant with a 500; with `prompt=none` the
 * answer is `login_required`, as for no session.
 */
function signInPolicy(): interactionPolicy.DefaultPolicy {
  const { base, Check } = interactionPolicy;
  const policy = base();
  policy
    .get('login')
    ?.checks.add(
      new Check(
        'account_gone',
        'the signed-in user no longer exists',
        'login_required',
        (ctx) => ctx.oidc.session?.accountId !== undefined && ctx.oidc.account === undefined,
      ),
    );
  return policy;
}

/** The sign-in page of one interaction, under the server's mount point. */
export const interactionPath = (uid: string): string => `${OAUTH_PATH}/interaction/${uid}`;
