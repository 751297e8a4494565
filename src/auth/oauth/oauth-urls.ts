/** Where the built-in authorization server is mounted. */
export const OAUTH_PATH = '/oauth';

/**
 * The built-in issuer's identifier for an origin (PUBLIC_URL, or the request's origin when
 * it is unset): `https://api.example.com/oauth`.
 */
export const builtInIssuer = (origin: string): string => `${origin}${OAUTH_PATH}`;

/** The audience (RFC 8707 resource) of the built-in issuer's access tokens: this API. */
export const apiAudience = (origin: string): string => `${origin}/api`;
