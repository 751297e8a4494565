import type { Logger } from '@nestjs/common';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';

const TIMEOUT_MS = 5000;
/** Between two fetches, and after a failed one. */
const COOLDOWN_MS = 30_000;
const CACHE_MAX_AGE_MS = 10 * 60_000;

/** No fetch was made: the issuer's last one failed less than COOLDOWN_MS ago. */
export class IssuerKeysUnavailable extends Error {}

/**
 * An external issuer's signing keys: jose's remote key set (fetched when first needed,
 * kept 10 minutes, fetched again for an unknown `kid` at most every 30 seconds), with the
 * one thing it has no option for. jose remembers a fetch that worked, not one that failed:
 * with the issuer's JWKS down or answering something that is no key set, every token that
 * needed a fetch made one, each waiting up to the 5-second time-out, so anyone could keep
 * a failing identity provider busy, and requests waited 10 s (the guard and the rate limit
 * each verify the token once). Here a failed fetch (no answer in time, a status other
 * than 200, a body that is no JSON key set) is logged once and remembered for 30 seconds:
 * meanwhile the keys jose holds still answer, and a token that would need a fetch is
 * refused at once. Through jose's own `customFetch` option, so its cache stays its own.
 */
export class IssuerKeys {
  readonly getKey: JWTVerifyGetKey;
  private failedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly issuer: string,
    jwksUri: URL,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.getKey = createRemoteJWKSet(jwksUri, {
      timeoutDuration: TIMEOUT_MS,
      cooldownDuration: COOLDOWN_MS,
      cacheMaxAge: CACHE_MAX_AGE_MS,
      [customFetch]: (url, options) => this.fetch(url, options),
    });
  }

  /** The last fetch failed less than 30 s ago: a key not held cannot be had now. */
  get unavailable(): boolean {
    return Date.now() - this.failedAt < COOLDOWN_MS;
  }

  private async fetch(url: string, options: RequestInit): Promise<Response> {
    if (this.unavailable) {
      throw new IssuerKeysUnavailable(`the keys of ${this.issuer} could not be fetched lately`);
    }
    let response: Response;
    try {
      response = await fetch(url, options);
    } catch (error) {
      this.failed(error instanceof Error ? error.message : String(error));
      throw error;
    }
    const problem = await problemOf(response.clone());
    if (problem) this.failed(problem);
    // jose judges the answer itself: a failure here is one there too
    return response;
  }

  private failed(reason: string): void {
    this.failedAt = Date.now();
    this.logger.warn(
      { issuer: this.issuer, reason },
      `Could not get the issuer keys: ${reason}; retried in ${COOLDOWN_MS / 1000} s at the earliest`,
    );
  }
}

/** What makes `response` no JWKS jose could use; undefined when it is one. */
async function problemOf(response: Response): Promise<string | undefined> {
  if (response.status !== 200) return `the JWKS answered ${response.status}`;
  try {
    const body = (await response.json()) as { keys?: unknown } | null;
    return Array.isArray(body?.keys) ? undefined : 'the JWKS answer has no "keys" list';
  } catch {
    return 'the JWKS answer is not JSON';
  }
}
