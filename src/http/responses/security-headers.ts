import type { ServerResponse } from 'node:http';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { OAUTH_PATH } from '../../auth/oauth/oauth-urls';
import type { AppConfig } from '../../config/app-config';

/** One year, the value HSTS preload lists ask for. */
const HSTS_MAX_AGE_S = 31_536_000;

const hsts = (config: AppConfig): HelmetOptions['strictTransportSecurity'] =>
  config.tls ? { maxAge: HSTS_MAX_AGE_S, includeSubDomains: true } : false;

/**
 * Security headers of the JSON answers (API.md §1): what the OWASP REST Security Cheat
 * Sheet asks of an API (`X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, a
 * Content-Security-Policy that allows nothing to load or frame the answer), plus
 * `Cross-Origin-Resource-Policy: same-origin` and `Referrer-Policy: no-referrer`, and
 * `Strict-Transport-Security` when the server speaks HTTPS. helmet's other defaults
 * (`Cross-Origin-Opener-Policy`, `Origin-Agent-Cluster`, `X-DNS-Prefetch-Control`,
 * `X-Download-Options`, `X-Permitted-Cross-Domain-Policies`, `X-XSS-Protection`) act on
 * HTML documents only; the pages keep them (`pageHelmetOptions`). Six headers fewer on
 * every answer took 5–10 % off the API's CPU per GET by id (docs/performance.md).
 */
export function apiHelmetOptions(config: AppConfig): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] },
    },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    strictTransportSecurity: hsts(config),
  };
}

/**
 * Security headers of the HTML pages (the docs UI under /docs, the sign-in and consent
 * pages under /oauth): helmet's defaults, with a Content-Security-Policy under which the
 * docs UI (Swagger UI) works offline: its scripts, styles, images and fonts come from this
 * host only. Swagger UI styles elements inline, hence `style-src 'unsafe-inline'`;
 * scripts stay `'self'`. No `form-action`: browsers apply it to the redirect that follows
 * a login form, which leaves for the OAuth client's redirect URI.
 * `Strict-Transport-Security` only when the server speaks HTTPS.
 */
export function pageHelmetOptions(config: AppConfig): HelmetOptions {
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
    strictTransportSecurity: hsts(config),
  };
}

/**
 * The path prefixes that serve HTML pages, and so get `pageHelmetOptions`' headers: the
 * docs UI and the authorization server (its sign-in and consent pages).
 */
const PAGE_PREFIXES = ['/docs', OAUTH_PATH];

/** Whether the request target `url` lies under a prefix that serves pages. */
export function servesPages(url: string): boolean {
  return PAGE_PREFIXES.some((prefix) => {
    if (!url.startsWith(prefix)) return false;
    const next = url.charAt(prefix.length);
    return next === '' || next === '/' || next === '?';
  });
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
 * The security headers of every answer, each set computed once: the pages' under /docs
 * and /oauth, the API's everywhere else. The hook below and the answers made before any
 * hook runs (framework-errors.ts, client-errors.ts) take them from here.
 */
export class SecurityHeaders {
  readonly api: [string, string][];
  readonly pages: [string, string][];

  constructor(config: AppConfig) {
    this.api = securityHeaders(apiHelmetOptions(config));
    this.pages = securityHeaders(pageHelmetOptions(config));
  }

  /** The headers of an answer to the request target `url`. */
  for(url: string): [string, string][] {
    return servesPages(url) ? this.pages : this.api;
  }
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
  const headers = new SecurityHeaders(config);
  adapter.registerSecurityHook((request: { url: string }, response) => {
    for (const [name, value] of headers.for(request.url)) response.setHeader(name, value);
    return undefined;
  });
}
