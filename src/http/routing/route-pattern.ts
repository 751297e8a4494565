import type { FastifyRequest } from 'fastify';

/** The patterns of routes served outside Fastify's router, by request. */
const foreignRoutes = new WeakMap<FastifyRequest['raw'], string>();

/**
 * Names the route pattern of a request that a hook answers before Fastify routes it (the
 * authorization server's, which are hijacked), for its metrics series and log line.
 */
export function setRoutePattern(request: FastifyRequest, pattern: string): void {
  foreignRoutes.set(request.raw, pattern);
}

/**
 * The ROUTE PATTERN a request matched (`/api/v1/products/:id`, `/oauth/token`), never the
 * URL; undefined when no route matched (404, 405).
 */
export function routePatternOf(request: FastifyRequest): string | undefined {
  return request.routeOptions.url ?? foreignRoutes.get(request.raw);
}
