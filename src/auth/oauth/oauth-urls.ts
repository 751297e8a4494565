/** Where the built-in authorization server is mounted. */
export const OAUTH_PATH = '/oauth';

/**
 * The built-in issuer's identifier for an origin (PUBLIC_URL, or the request's origin when
 * it is unset): the origin itself, `https://api.example.com`. RFC 8414 §3 and OpenID
 * Connect Discovery place an issuer's metadata at `<issuer>/.well-known/...`, and a client
 * that discovers the server from its base URL (API.md §2 names the root paths) checks that
 * the metadata names that URL as its issuer. The endpoints stay under OAUTH_PATH.
 */
export const builtInIssuer = (origin: string): string => origin;

/**
 * The issuer earlier versions named, `<origin>/oauth`: access tokens they signed are still
 * accepted until they expire (15 minutes), so an upgrade signs nobody out.
 */
export const formerBuiltInIssuer = (origin: string): string => `${origin}${OAUTH_PATH}`;

/** The audience (RFC 8707 resource) of the built-in issuer's access tokens: this API. */
export const apiAudience = (origin: string): string => `${origin}/api`;
