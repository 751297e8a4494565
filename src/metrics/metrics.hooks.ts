import type { FastifyInstance } from 'fastify';
import { routePatternOf } from '../http/routing/route-pattern';
import type { Metrics } from './metrics';

export const METRICS_PATH = '/metrics';
/** The route label of a request no route matched (404, 405): one series, not one per URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every answer and its latency by the ROUTE PATTERN (`/api/v1/products/:id`),
 * never the URL, so the number of series stays bounded. Scrapes are not counted.
 */
export function registerMetricsHooks(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = routePatternOf(request);
    if (route !== METRICS_PATH) {
      metrics.recordHttp(
        request.method,
        route ?? UNMATCHED_ROUTE,
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
    }
    done();
  });
}
