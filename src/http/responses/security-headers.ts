import type { ServerResponse } from 'node:http';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { AppConfig } from '../../config/app-config';

/** One year, the value HSTS preload lists ask for. */
const HSTS_MAX_AGE_S = 31_536_000;

/**
 * Security headers from helmet (API.md §1): `X-Content-Type-Options: nosniff`, frame and
 * referrer policies, and a Content-Security-Policy under which the docs UI (/docs,
 * Swagger UI) works offline: its scripts, styles, images and fonts come from this host
 * only. Swagger UI styles elements inline, hence `style-src 'unsafe-inline'`; scripts
 * stay `'self'`. No `form-action`: browsers apply it to the redirect that follows a login
 * form, which leaves for the OAuth client's redirect URI. `Strict-Transport-Security`
 * only when the server speaks HTTPS.
 */
export function helmetOptions(config: AppConfig): HelmetOptions {
  return {
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
  };
}

/**
 * The headers helmet sets under `options`, computed once. With no per-request input (no
 * CSP nonces) they are the same on every answer; @fastify/helmet would instead rebuild
 * helmet's middleware on every request, measured at a tenth of the CPU of a GET.
 */
export function securityHeaders(options: HelmetOptions): [string, string][] {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: unknown) => void headers.set(name, String(value)),
    removeHeader: (name: string) => void headers.delete(name),
  };
  // helmet 8 throws a bad option rather than passing it to `next`
  helmet(options)({} as never, recorder as unknown as ServerResponse, () => undefined);
  return [...headers];
}

/**
 * Every answer carries the security headers, set on the raw response before anything else
 * runs, so answers written past Fastify's reply (the hijacked /oauth routes) carry them
 * too. Through the adapter's security-hook slot (Nest's `registerSecurityHook`, the one
 * `app.useSecurityHeaders()` would take) rather than a hook of our own: Nest's adapter
 * adds its `onRequest` hooks first, and one of them sends a request target that is not a
 * path (`OPTIONS *`) to the not-found handler before any later hook runs; its slot runs
 * before that.
 */
export function registerSecurityHeaders(adapter: FastifyAdapter, config: AppConfig): void {
  const headers = securityHeaders(helmetOptions(config));
  adapter.registerSecurityHook((_request, response) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    return undefined;
  });
}
