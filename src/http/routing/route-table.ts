import FindMyWay, { type HTTPVersion, type Instance } from 'find-my-way';
import type { FastifyInstance } from 'fastify';
import { hasEmptyParameter } from './unmatched-routes';

/**
 * Every route the server knows, by method, so an unmatched request can be told apart:
 * a path that exists under another method is 405 with `Allow`, anything else 404.
 * Fastify's own router answers only "no match", hence this second index.
 *
 * Wildcard routes are left out: a catch-all says nothing about which paths exist.
 * @fastify/cors' `*` OPTIONS route answers preflights, and `/docs/*` (@fastify/static,
 * the docs UI's files) hands a file it does not have to the not-found handler: indexed,
 * it made every path under /docs "known", a `405` even for the GET it had just refused.
 * So a path that only a wildcard serves is `404` under any other method, unless the
 * route's paths are listed (`servesOnly`): then those, and only those, are indexed.
 */
export class RouteTable {
  private readonly router: Instance<HTTPVersion.V1>;
  private readonly methods = new Set<string>();
  private readonly listed = new Map<string, readonly string[]>();

  /** `maxParamLength`: the HTTP router's, so both agree on what can be a route parameter. */
  constructor(maxParamLength: number) {
    this.router = FindMyWay({ ignoreTrailingSlash: false, maxParamLength });
  }

  /** Call before any route is registered. */
  attach(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route) => {
      const paths = this.listed.get(route.url) ?? (route.url.includes('*') ? [] : [route.url]);
      for (const method of ([] as string[]).concat(route.method)) {
        for (const path of paths) {
          if (this.router.hasRoute(method as never, path)) continue;
          this.router.on(method as never, path, () => undefined);
          this.methods.add(method);
        }
      }
    });
  }

  /**
   * The route registered as `url` (a wildcard or with parameters) serves `paths` and no
   * others: those take its methods, any other path it matches is unknown (`404` under
   * every method). Call before that route is registered.
   */
  servesOnly(url: string, paths: readonly string[]): void {
    this.listed.set(url, paths);
  }

  /**
   * The methods `url` (path and query) answers to; empty when the path is unknown, or is
   * no path at all (`*`, `*api/v1/products`: find-my-way would read the first character
   * as the leading `/`, and Nest's adapter sends such a target to the not-found handler).
   */
  allowedMethods(url: string): string[] {
    const path = url.split('?')[0];
    if (path.charCodeAt(0) !== 0x2f /* '/' */) return [];
    return [...this.methods].filter((m) => this.serves(m, path)).sort();
  }

  /** A match with an empty parameter is no route (hasEmptyParameter). */
  private serves(method: string, path: string): boolean {
    const match = this.router.find(method as never, path);
    return match !== null && !hasEmptyParameter(match.params);
  }
}
