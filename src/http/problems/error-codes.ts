/**
 * The error catalog of API.md §7: the one place that knows each code's status, title and
 * explanation. The problem filter, the /docs/errors pages and the OpenAPI responses all
 * read from it.
 */
export const ERROR_CODES = {
  bad_request: {
    status: 400,
    title: 'Bad request',
    description:
      'The request line, query string or a header links are built on is not acceptable: an unknown or repeated query parameter, a value out of range (for example `limit=500`), an unknown `sort` field, a tampered or foreign `cursor`, `page` where it is not allowed, an escape that is not percent-encoded UTF-8, a value holding the NUL character (U+0000), or a missing, repeated or malformed `Host`. `errors` names each parameter or header. Fix the request; retrying it unchanged gives the same answer.',
  },
  invalid_json: {
    status: 400,
    title: 'Invalid JSON',
    description:
      'The request body is not well-formed JSON. Send a body that `JSON.parse` accepts, with `Content-Type: application/json`. An empty body is no body, whatever `Content-Type` says.',
  },
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    description:
      'No credentials were sent. Send an API key in `X-API-Key` or an access token in `Authorization: Bearer <token>`. The `WWW-Authenticate` header lists both challenges.',
  },
  invalid_token: {
    status: 401,
    title: 'Invalid credentials',
    description:
      'Credentials were sent but are not valid: an unknown, revoked or expired API key, or a token that is malformed, expired, not yet valid, from an untrusted issuer, for another audience or signed by an unknown key. Get a new key or token.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description:
      "The credentials are valid but their role (narrowed by the token's scopes) lacks the permission this operation needs. `detail` names the permission. See the role table in the authentication guide.",
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed',
    description:
      'The browser origin in the `Origin` header is not in the allowlist (`CORS_ORIGINS`). Ask the operator to add it; server-to-server calls send no `Origin` and are not affected.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description:
      'No resource lives at this URL, or it was archived or deleted, or it belongs to another customer. Check the id; do not retry.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description:
      'The path exists but does not support this HTTP method. The `Allow` header lists the methods it supports.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    description:
      'The request conflicts with the current state of the resource, for example a `sku` that another product already uses, or a change that would leave stock below what is reserved. `detail` says which.',
  },
  insufficient_stock: {
    status: 409,
    title: 'Insufficient stock',
    description:
      'Not enough stock is available for the request. `errors` names each short line or SKU with what is available. Nothing was reserved or changed.',
  },
  invalid_status_transition: {
    status: 409,
    title: 'Invalid status transition',
    description:
      'The resource cannot move from its current status to the one requested. The state machines are in the orders guide. Nothing was changed.',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Idempotency key in use',
    description:
      'A request with the same `Idempotency-Key` is still being processed. Wait a moment and retry with the same key and body: you will get its answer.',
  },
  precondition_failed: {
    status: 412,
    title: 'Precondition failed',
    description:
      'The `If-Match` header does not match the current `ETag` of the resource: someone changed it since you read it. GET it again, reapply your change, and retry with the new `ETag`. Nothing was changed.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is larger than 1 MiB.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description:
      'Request bodies must be JSON sent with `Content-Type: application/json` (a `charset=utf-8` parameter is fine), as they are: without a `Content-Encoding` such as `gzip`.',
  },
  validation_failed: {
    status: 422,
    title: 'Validation failed',
    description:
      'The body is well-formed JSON but does not satisfy the schema or the business rules: a missing or unknown field, a value of the wrong type or out of range, money with the wrong number of decimals, a string holding the NUL character (U+0000), objects and arrays nested more than 32 levels deep. `errors` lists each `field` with its `message`. Nothing was changed.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency key reused',
    description:
      'This `Idempotency-Key` was already used with a different request body. Use a new key for a new request.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limit exceeded',
    description:
      'The caller used up its request budget for the current window. Wait the number of seconds in `Retry-After`; the `RateLimit` header says how much is left.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description:
      'Something went wrong on our side. It has been logged with the `requestId` of this answer; quote it when you contact support. Retrying later is safe for GET and for POST with an `Idempotency-Key`.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    description:
      'A dependency (the database) is not reachable right now. Retry after the number of seconds in `Retry-After`.',
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: string): value is ErrorCode =>
  Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
