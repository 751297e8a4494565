import { errors } from 'oidc-provider';
import { DATABASE_UNREACHABLE, databaseUnavailable } from '../../http/problems/problem-mapping';

/** The OAuth error code for a server that cannot answer now (RFC 6749 §4.1.2.1). */
export const TEMPORARILY_UNAVAILABLE = {
  error: 'temporarily_unavailable',
  error_description: `${DATABASE_UNREACHABLE} Retry later.`,
} as const;

/**
 * `work`, with a failure to reach the database turned into the error oidc-provider
 * answers `503 temporarily_unavailable` with (a redirect with that `error` where the
 * authorization endpoint can redirect), where it would answer `500 server_error` with
 * "oops! something went wrong" to anything it did not throw itself. apiEdges adds the
 * `Retry-After` the API's own 503 carries (API.md §7).
 */
export async function reachingDatabase<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw databaseUnavailable(error) ? temporarilyUnavailable(error) : error;
  }
}

function temporarilyUnavailable(cause: unknown): errors.OIDCProviderError {
  const error = new errors.TemporarilyUnavailable(TEMPORARILY_UNAVAILABLE.error_description, {
    cause,
  });
  // oidc-provider answers with an error's statusCode, and shows its code only if exposed
  error.status = error.statusCode = 503;
  error.expose = true;
  return error;
}

/** Whether `error` means the database cannot be reached, thrown raw or as turned above. */
export function oauthUnavailable(error: unknown): boolean {
  return (
    databaseUnavailable(error) ||
    (error instanceof errors.OIDCProviderError && error.statusCode === 503)
  );
}
