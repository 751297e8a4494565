import { HOST_NAME_MESSAGE, HTTP_URI_WITHOUT_FRAGMENT } from '../../common/dto/uri';
import { isHost } from '../../http/input/request-target';
import { type Permission, RESOURCES } from '../permissions';
import type { FieldError } from '../../http/problems/problem';

/** Every permission string, the scopes a client may be allowed (API.md §2). */
export const ALL_PERMISSIONS: Permission[] = RESOURCES.flatMap((resource) => [
  `${resource}:read` as const,
  `${resource}:write` as const,
]);

/**
 * The scopes the authorization server's discovery and the OpenAPI documents advertise,
 * and the only ones a token can carry: the permissions some operation requires.
 * `events:write` is not one: the events feed is written by the service alone and has
 * no write operation. A registration may still name it, as it always could (refusing it
 * now would break clients within the version), but it grants nothing.
 */
export const GRANTABLE_PERMISSIONS: Permission[] = ALL_PERMISSIONS.filter(
  (permission) => permission !== 'events:write',
);

export const isGrantable = (scope: string): boolean =>
  (GRANTABLE_PERMISSIONS as string[]).includes(scope);

export const MAX_REDIRECT_URIS = 10;

/**
 * Shape only, an http(s) URI (RFC 3986) without a fragment; `redirectUriProblems` applies
 * the rest.
 */
export const REDIRECT_URI_PATTERN = HTTP_URI_WITHOUT_FRAGMENT;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Redirect URIs are compared exactly by the authorization server; here they must be
 * https (http only on a loopback host, for development and native apps, RFC 8252 §7.3),
 * carry no fragment (RFC 6749 §3.1.2) and no credentials, and name a real host (no
 * wildcard: the comparison is exact, so one could never match).
 */
export function redirectUriProblems(uris: readonly string[]): FieldError[] {
  const problems: FieldError[] = [];
  uris.forEach((uri, index) => {
    const field = `redirectUris[${index}]`;
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      problems.push({ field, message: 'must be an absolute URL' });
      return;
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
      problems.push({
        field,
        message: 'must be https (http only on a loopback host: localhost, 127.0.0.1 or [::1])',
      });
    } else if (url.username || url.password) {
      problems.push({ field, message: 'must not carry credentials' });
    } else if (!isHost(url.hostname)) {
      problems.push({ field, message: HOST_NAME_MESSAGE });
    }
  });
  return problems;
}

export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

/**
 * The grants a client may use: the code flow (with refresh) when it has somewhere to send
 * the user back to, client credentials when it can keep a secret.
 */
export function grantTypesOf(client: {
  public: boolean;
  redirectUris: readonly string[];
}): GrantType[] {
  return [
    ...(client.redirectUris.length > 0 ? (['authorization_code', 'refresh_token'] as const) : []),
    ...(client.public ? [] : (['client_credentials'] as const)),
  ];
}
