import { Provider } from 'oidc-provider';
import type { TokenEndpointGrantContext } from 'oidc-provider';
import { permissionScopesOf } from './provider-configuration';

type GrantHandler<Params extends object> = (
  ctx: TokenEndpointGrantContext<Params>,
) => void | Promise<void>;
type ParameterNames = string | readonly string[] | ReadonlySet<string>;

/**
 * oidc-provider with one policy it has no setting for. RFC 6749 §3.3: a token request
 * that omits `scope` gets a default or fails. oidc-provider would issue a
 * client-credentials token with no scope at all, and a built-in token without a
 * permission scope can do nothing here; so an omitted scope means every permission the
 * client is registered for. The constructor registers the built-in grants through
 * `registerGrantType`, which is where the client-credentials handler is wrapped.
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
    return handler(ctx);
  };
}
