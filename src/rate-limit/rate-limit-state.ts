import type { FastifyReply } from 'fastify';

/** Where a request stands against its budget after it was counted (API.md §8). */
export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  /** what is left after this request */
  remaining: number;
  /** seconds until the window resets */
  resetSeconds: number;
  /** this request is past the budget: it is answered 429 */
  exceeded: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set once the request is counted; `null` when a route opted out (`@SkipThrottle`),
     * undefined while it has not been counted yet.
     */
    rateLimit?: RateLimitState | null;
  }
}

/** Rate limits apply to the API only, not to /docs, /health or the OAuth endpoints. */
export const isRateLimitedPath = (url: string): boolean => /^\/api(?:[/?]|$)/.test(url);

/**
 * The IETF draft headers (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and
 * `RateLimit` as structured fields) and the older `X-RateLimit-*` trio, plus `Retry-After`
 * on a 429.
 */
export function writeRateLimitHeaders(reply: FastifyReply, state: RateLimitState): void {
  void reply.header('RateLimit-Policy', `"default";q=${state.limit};w=${state.windowSeconds}`);
  void reply.header('RateLimit', `"default";r=${state.remaining};t=${state.resetSeconds}`);
  void reply.header('X-RateLimit-Limit', String(state.limit));
  void reply.header('X-RateLimit-Remaining', String(state.remaining));
  void reply.header('X-RateLimit-Reset', String(state.resetSeconds));
  if (reply.statusCode === 429) void reply.header('Retry-After', String(state.resetSeconds));
}
