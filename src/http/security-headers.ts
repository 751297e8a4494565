import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config/app-config';

/** One year, the value HSTS preload lists ask for. */
const HSTS_MAX_AGE_S = 31_536_000;

/**
 * Security headers with @fastify/helmet (API.md §1): `X-Content-Type-Options: nosniff`,
 * frame and referrer policies, and a Content-Security-Policy under which the docs UI
 * (/docs, Swagger UI) works offline: its scripts, styles, images and fonts come from this
 * host only. Swagger UI styles elements inline, hence `style-src 'unsafe-inline'`;
 * scripts stay `'self'`. No `form-action`: browsers apply it to the redirect that follows
 * a login form, which leaves for the OAuth client's redirect URI.
 * `Strict-Transport-Security` only when the server speaks HTTPS.
 */
export async function registerSecurityHeaders(
  fastify: FastifyInstance,
  config: AppConfig,
): Promise<void> {
  await fastify.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'connect-src': ["'self'"],
        'font-src': ["'self'", 'data:'],
        'frame-ancestors': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'object-src': ["'none'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        ...(config.tls ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    strictTransportSecurity: config.tls
      ? { maxAge: HSTS_MAX_AGE_S, includeSubDomains: true }
      : false,
  });
}
