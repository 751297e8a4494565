import type { IncomingMessage } from 'node:http';
import type { Provider } from 'oidc-provider';
import { RETRY_AFTER_S } from '../../http/problems/problem-mapping';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../../http/problems/problem-response';
import { REVALIDATE_EACH_TIME } from '../../http/responses/etag';
import { VARY } from '../../http/responses/response-hooks';
import { unmatchedRouteProblem } from '../../http/routing/unmatched-routes';

/**
 * The paths the authorization server serves, as oidc-provider sees them (under its mount
 * point, the root discovery paths mapped to its own), with their methods: what
 * oidc-provider registers for the features provider-configuration.ts enables
 * (lib/helpers/initialize_app.js; a GET route answers HEAD too), and the sign-in
 * interaction, which login-interaction.ts serves. OPTIONS is left out, as on the API's
 * routes: it answers CORS preflights only, and the CORS hook (cors.ts) answers those
 * before the authorization server sees them. Used only to
 * tell a wrong method (405 with `Allow`) from an unknown path (404) once oidc-provider
 * has matched no route, and to name a request's route pattern in metrics and logs, so a
 * route missing here is still served; test/oauth-routes.test.ts checks every entry
 * against oidc-provider.
 */
const ROUTES: { path: RegExp; pattern: string; methods: string[] }[] = [
  { path: /^\/auth$/, pattern: '/auth', methods: ['GET', 'HEAD'] },
  // an authorization request resumed after the sign-in
  { path: /^\/auth\/[^/]+$/, pattern: '/auth/:uid', methods: ['GET', 'HEAD'] },
  { path: /^\/token$/, pattern: '/token', methods: ['POST'] },
  { path: /^\/token\/revocation$/, pattern: '/token/revocation', methods: ['POST'] },
  { path: /^\/jwks$/, pattern: '/jwks', methods: ['GET', 'HEAD'] },
  // pushed authorization requests (RFC 9126), on by default in oidc-provider
  { path: /^\/request$/, pattern: '/request', methods: ['POST'] },
  // registered whether or not logout is enabled
  { path: /^\/session\/end\/confirm$/, pattern: '/session/end/confirm', methods: ['POST'] },
  {
    path: /^\/\.well-known\/(oauth-authorization-server|openid-configuration)$/,
    pattern: '/.well-known/:document',
    methods: ['GET', 'HEAD'],
  },
  { path: /^\/interaction\/[^/]+$/, pattern: '/interaction/:uid', methods: ['GET'] },
  { path: /^\/interaction\/[^/]+\/login$/, pattern: '/interaction/:uid/login', methods: ['POST'] },
];

/**
 * The route of `path` (as oidc-provider sees it). Compared as oidc-provider's router
 * does: without case, one trailing slash ignored.
 */
function routeOf(path: string) {
  const folded = (path.length > 1 ? path.replace(/\/$/, '') : path).toLowerCase();
  return ROUTES.find((route) => route.path.test(folded));
}

/** The methods served on `path` (as oidc-provider sees it), sorted; empty when none is. */
export function oauthMethodsOf(path: string): string[] {
  return routeOf(path)?.methods ?? [];
}

/**
 * The pattern of the route serving `method` on `path` (as oidc-provider sees it, under
 * its mount point): `/auth/:uid`; undefined when none does (a 404 or 405).
 */
export function oauthRoutePatternOf(method: string, path: string): string | undefined {
  const route = routeOf(path);
  return route?.methods.includes(method) ? route.pattern : undefined;
}

/** The request as the client sent it, before oidc-provider's rewrite of `req.url`. */
export interface SentRequest {
  url: string;
  id: string;
}

type Middleware = Parameters<Provider['use']>[0];

/**
 * oidc-provider middleware that makes its edges look like the rest of the API (API.md §1).
 * A request it has no route for would get Koa's plain-text "Not Found"; it gets the 404
 * problem instead, or a 405 problem with `Allow` when the path takes other methods. And
 * once oidc-provider is done, `req.url` is what the client sent again: it routes on a
 * rewritten one (the mount point cut off, root discovery paths mapped to its own), and
 * the request's log line, written when the answer ends, shows `req.url`. A 503 (the
 * database cannot be reached, oauth-unavailable.ts) carries `Retry-After` as the API's does.
 *
 * Its URLs are on `origin`, the one the rest of the API links to (PUBLIC_URL when set,
 * base-url.ts): Koa would take scheme and host from the request, so discovery named an
 * `https://` issuer next to `http://…/oauth/token` behind a proxy ending TLS, which
 * clients refuse. The scheme also decides whether cookies are `Secure`.
 */
export function apiEdges(
  origin: string,
  sentRequestOf: (req: IncomingMessage) => SentRequest | undefined,
): Middleware {
  const { protocol, host } = new URL(origin);
  const seenAs = { protocol: { value: protocol.slice(0, -1) }, host: { value: host } };
  return async (ctx, next) => {
    // Koa's ctx.href, ctx.origin and ctx.secure read these two
    Object.defineProperties(ctx.request, seenAs);
    const sent = sentRequestOf(ctx.req);
    try {
      await next();
      if (ctx.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_S));
      // RFC 6749 §5.1 asks for it next to the `Cache-Control: no-store` oidc-provider sends
      if (ctx.path === '/token') ctx.set('Pragma', 'no-cache');
      // oidc-provider gives a request an `oidc` context when one of its routes matches; its
      // CORS-enabled routes match OPTIONS, which they answer only as a preflight
      const matched = 'oidc' in ctx && ctx.method !== 'OPTIONS';
      if (sent && !matched && ctx.status === 404 && ctx.body === undefined) {
        // A path of a served shape that nothing answered with the method it takes (a sign-in
        // page whose uid no interaction can have, `/interaction/%C3%A9`) is not found: a
        // 405 would tell the client to use the method it used.
        const methods = oauthMethodsOf(ctx.path);
        const allowed = methods.includes(ctx.method) ? [] : methods;
        const problem = unmatchedRouteProblem(ctx.method, sent.url, allowed);
        ctx.status = problem.status;
        ctx.set(problem.headers);
        ctx.set('Content-Type', PROBLEM_CONTENT_TYPE);
        // as on the API's own problems (response-hooks.ts)
        ctx.set('Cache-Control', REVALIDATE_EACH_TIME);
        ctx.set('Vary', VARY);
        ctx.body = Buffer.from(JSON.stringify(problemBody(problem, sent, origin)));
      }
    } finally {
      if (sent) ctx.req.url = sent.url;
    }
  };
}
