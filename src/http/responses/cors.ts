import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { baseUrl } from './base-url';
import { Problem } from '../problems/problem';
import { sendProblem } from '../problems/problem-response';

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
  // what a browser client needs to act on a 401 (which credential, RFC 6750 error) and a 405
  'WWW-Authenticate',
  'Allow',
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
  const cors = corsPolicy(config);

  // Answered here rather than thrown: a preflight matches @fastify/cors' catch-all OPTIONS
  // route, registered before Nest installs the problem filter as the error handler.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!cors.refuses(request)) return done();
    void reply.header('Vary', 'Origin');
    // answered: the hook chain ends here, without done()
    sendProblem(reply, request, originNotAllowed(request), baseUrl(request, config.publicUrl));
  });

  // Options fixed at start-up and the origin decided per request (a `delegator` would
  // have the plugin rebuild its options on every request). What reaches this point is
  // either not cross-origin or allowed; only an allowed Origin is echoed.
  await fastify.register(fastifyCors, {
    ...ALLOWED_ORIGIN_OPTIONS,
    hook: 'onRequest',
    origin: (origin: string | undefined, callback: (error: null, allow: string | false) => void) =>
      callback(null, cors.allows(origin) ? origin : false),
  });
}

/**
 * The origin rules above, fixed at start-up; framework-errors.ts applies them to the
 * answers Fastify's router makes before any hook runs.
 */
export function corsPolicy(config: AppConfig) {
  const allowed = new Set(config.corsOrigins.map((origin) => new URL(origin).origin));
  const publicOrigin = config.publicUrl && new URL(config.publicUrl).origin;
  const allows = (origin: string | undefined): origin is string =>
    origin !== undefined && allowed.has(origin);
  return {
    /** `origin` is on `CORS_ORIGINS`. */
    allows,
    /** The request's `Origin` is cross-origin (not this server's) and not on the list. */
    refuses: (request: FastifyRequest): boolean => {
      const origin = request.headers.origin;
      return (
        origin !== undefined &&
        !allowed.has(origin) &&
        origin !== baseUrl(request, undefined) &&
        origin !== publicOrigin
      );
    },
  };
}

export const originNotAllowed = (request: FastifyRequest): Problem =>
  new Problem(
    'origin_not_allowed',
    `The origin ${request.headers.origin} is not allowed to call this API.`,
  );

const ALLOWED_ORIGIN_OPTIONS: FastifyCorsOptions = {
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: CORS_ALLOWED_HEADERS,
  exposedHeaders: CORS_EXPOSED_HEADERS,
  maxAge: 600,
  // An OPTIONS with Origin but no Access-Control-Request-Method is answered as a
  // preflight rather than with the plugin's own text/plain 400.
  strictPreflight: false,
};
