import { errors, Provider } from 'oidc-provider';
import type { TokenEndpointGrantContext } from 'oidc-provider';
import { ALL_PERMISSIONS } from '../oauth-clients/oauth-client-rules';
import { OIDC_SCOPES } from './oauth-client-metadata';
import { permissionScopesOf } from './provider-configuration';

type GrantHandler<Params extends object> = (
  ctx: TokenEndpointGrantContext<Params>,
) => void | Promise<void>;
type ParameterNames = string | readonly string[] | ReadonlySet<string>;

/** Every scope value this server knows: OpenID's and every permission (granted or not). */
const KNOWN_SCOPES: ReadonlySet<string> = new Set([...OIDC_SCOPES, ...ALL_PERMISSIONS]);

/**
 * oidc-provider with two policies it has no setting for, both on client credentials.
 * RFC 6749 §3.3: a token request that omits `scope` gets a default or fails. oidc-provider
 * would issue a client-credentials token with no scope at all, and a built-in token
 * without a permission scope can do nothing here; so an omitted scope means every
 * permission the client is registered for. And a scope value that is no scope of this
 * server (`orders:raed`) is `invalid_scope` (RFC 6749 §5.2: "unknown"), where
 * oidc-provider drops it: a token asked for with a misspelt scope came back without it
 * and was refused by every operation. (An authorization request still ignores unknown
 * values, as OpenID Connect Core §3.1.2.1 says.) The constructor registers the built-in
 * grants through `registerGrantType`, which is where the client-credentials handler is
 * wrapped.
 */
export class ApiProvider extends Provider {
  override registerGrantType<Params extends object>(
    name: string,
    handler: GrantHandler<Params>,
    params?: ParameterNames,
    duplicates?: ParameterNames,
  ): void {
    super.registerGrantType(
      name,
      name === 'client_credentials' ? withDefaultScope(handler) : handler,
      params,
      duplicates,
    );
  }
}

function withDefaultScope<Params extends object>(
  handler: GrantHandler<Params>,
): GrantHandler<Params> {
  return (ctx) => {
    const { params, client } = ctx.oidc;
    // oidc-provider reads an empty `scope=` as omitted too
    if (params.scope === undefined) params.scope = permissionScopesOf(client).join(' ');
    const unknown = String(params.scope)
      .split(' ')
      .filter((scope) => scope !== '' && !KNOWN_SCOPES.has(scope));
    if (unknown.length > 0) {
      throw new errors.InvalidScope(`unknown scope: ${unknown.join(' ')}`, unknown.join(' '));
    }
    return handler(ctx);
  };
}
