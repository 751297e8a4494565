import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config';
import { baseUrl } from './base-url';
import { Problem } from './problem';
import { sendProblem } from './problem-response';

/** Request headers a browser client may send (preflight `Access-Control-Allow-Headers`). */
export const CORS_ALLOWED_HEADERS = [
  'X-API-Key',
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'X-Request-Id',
];

/** Response headers a browser client may read (`Access-Control-Expose-Headers`). */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Link',
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
];

/**
 * CORS (API.md §9). `CORS_ORIGINS` is the allowlist. Allowed origins get their headers from
 * @fastify/cors, preflights answered 204 before authentication (browsers send them without
 * credentials). Any other origin is refused with 403 `origin_not_allowed`, preflight or
 * not, with no `Access-Control-Allow-*` header: @fastify/cors has no refusal of its own (it
 * only leaves the headers out), so a hook in front of it answers the problem. Requests
 * without `Origin` (server to server) and same-origin requests (the docs UI, the login
 * page) pass untouched. `Vary: Origin` is on every answer.
 */
export async function registerCors(fastify: FastifyInstance, config: AppConfig): Promise<void> {
  const allowed = new Set(config.corsOrigins.map((origin) => new URL(origin).origin));
  const publicOrigin = config.publicUrl && new URL(config.publicUrl).origin;
  const isCrossOrigin = (origin: string | undefined, request: FastifyRequest) =>
    origin !== undefined && origin !== baseUrl(request, undefined) && origin !== publicOrigin;

  // Answered here rather than thrown: a preflight matches @fastify/cors' catch-all OPTIONS
  // route, registered before Nest installs the problem filter as the error handler.
  fastify.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (!isCrossOrigin(origin, request) || allowed.has(origin as string)) return done();
    void reply.header('Vary', 'Origin');
    const problem = new Problem(
      'origin_not_allowed',
      `The origin ${origin} is not allowed to call this API.`,
    );
    // answered: the hook chain ends here, without done()
    sendProblem(reply, request, problem, baseUrl(request, config.publicUrl));
  });

  // Options fixed at start-up and the origin decided per request (a `delegator` would
  // have the plugin rebuild its options on every request). What reaches this point is
  // either not cross-origin or allowed; only an allowed Origin is echoed.
  await fastify.register(fastifyCors, {
    ...ALLOWED_ORIGIN_OPTIONS,
    hook: 'onRequest',
    origin: (origin: string | undefined, callback: (error: null, allow: string | false) => void) =>
      callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
  });
}

const ALLOWED_ORIGIN_OPTIONS: FastifyCorsOptions = {
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: CORS_ALLOWED_HEADERS,
  exposedHeaders: CORS_EXPOSED_HEADERS,
  maxAge: 600,
  // An OPTIONS with Origin but no Access-Control-Request-Method is answered as a
  // preflight rather than with the plugin's own text/plain 400.
  strictPreflight: false,
};
