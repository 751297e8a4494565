import FindMyWay from 'find-my-way';
import type { FastifyInstance } from 'fastify';

/**
 * Every route the server knows, by method, so an unmatched request can be told apart:
 * a path that exists under another method is 405 with `Allow`, anything else 404.
 * Fastify's own router answers only "no match", hence this second index.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: false });
  private readonly methods = new Set<string>();

  /** Call before any route is registered. */
  attach(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route) => {
      // @fastify/cors' catch-all OPTIONS route answers preflights; it is not a resource.
      if (route.url === '*') return;
      const methods = ([] as string[]).concat(route.method);
      for (const method of methods) {
        if (this.router.hasRoute(method as never, route.url)) continue;
        this.router.on(method as never, route.url, () => undefined);
        this.methods.add(method);
      }
    });
  }

  /** The methods `url` (path and query) answers to; empty when the path is unknown. */
  allowedMethods(url: string): string[] {
    const path = url.split('?')[0];
    return [...this.methods].filter((m) => this.serves(m, path)).sort();
  }

  /**
   * Nest's Fastify adapter hands a request whose route parameter is empty
   * (`/products/`, `/products//x`) to the not-found handler, so such a match is no route.
   */
  private serves(method: string, path: string): boolean {
    const match = this.router.find(method as never, path);
    if (match === null) return false;
    return Object.entries(match.params).every(([name, value]) => value !== '' || name === '*');
  }
}
