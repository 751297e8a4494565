import { WWW_AUTHENTICATE } from '../../auth/authentication.guard';
import { ERROR_CODES } from '../../http/problems/error-codes';
import { PROBLEM_LIMITS } from '../../http/problems/problem';
import { MAX_LINK_LENGTH } from '../../http/pagination/pagination.dto';
import { V1_DEPRECATED_AT } from '../../http/responses/response-hooks';
import type { Json } from './openapi-shape';

/** The RFC 9457 problem body of API.md §7. */
export const PROBLEM_SCHEMA: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
  properties: {
    type: {
      type: 'string',
      format: 'uri',
      maxLength: 2048,
      description: 'Link to the page that explains `code`.',
    },
    title: {
      type: 'string',
      maxLength: 200,
      enum: [...new Set(Object.values(ERROR_CODES).map((entry) => entry.title))],
    },
    status: { type: 'integer', format: 'int32', minimum: 400, maximum: 599 },
    detail: { type: 'string', maxLength: PROBLEM_LIMITS.detail },
    instance: {
      type: 'string',
      maxLength: PROBLEM_LIMITS.instance,
      description: 'The request path.',
    },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    requestId: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    errors: {
      type: 'array',
      maxItems: PROBLEM_LIMITS.errors,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'message'],
        properties: {
          field: { type: 'string', maxLength: PROBLEM_LIMITS.field },
          message: { type: 'string', maxLength: PROBLEM_LIMITS.message },
        },
      },
    },
  },
};

const INT32_MAX = 2 ** 31 - 1;

/**
 * Response headers, referenced from every response by problem-responses.ts. Only headers
 * the service sends (or the contract of API.md promises) are described here: the older
 * `X-RateLimit-*` headers are sent too, but a response may document one rate-limit
 * convention only (the OWASP ruleset's rule), so they are described in prose (info).
 */
export const HEADERS: Json = {
  RateLimit: {
    description:
      'IETF draft `RateLimit` (API.md §8): requests remaining `r` after this one and seconds `t` until the window resets.',
    schema: {
      type: 'string',
      maxLength: 100,
      pattern: '^"[A-Za-z0-9_-]{1,32}";r=\\d{1,10};t=\\d{1,10}$',
      example: '"default";r=998;t=2341',
    },
  },
  'RateLimit-Policy': {
    description: 'IETF draft `RateLimit-Policy` (API.md §8): quota `q` per window of `w` seconds.',
    schema: {
      type: 'string',
      maxLength: 100,
      pattern: '^"[A-Za-z0-9_-]{1,32}";q=\\d{1,10};w=\\d{1,10}$',
      example: '"default";q=1000;w=3600',
    },
  },
  'Retry-After': {
    description:
      'Seconds to wait before a retry can succeed: on 429 until the budget is renewed, on 503 until the database may be back, on 409 `idempotency_key_in_use` until the first request has likely finished.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX, example: 2341 },
  },
  'Access-Control-Allow-Origin': {
    description:
      'CORS (API.md §9): the request\'s `Origin`, sent only when that origin is on the `CORS_ORIGINS` allowlist. Requests without `Origin` (server to server) get none.',
    schema: { type: 'string', format: 'uri', maxLength: 2048, example: 'https://app.example.com' },
  },
  'X-Request-Id': {
    description:
      "The request's id: the client's `X-Request-Id` when it is acceptable, generated otherwise. Errors quote it as `requestId`.",
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'WWW-Authenticate': {
    description:
      'On a `401`: the challenges a client may answer, `Bearer` and `ApiKey` (API.md §2). On a `403` to an access token that lacks the permission: `Bearer` with `error="insufficient_scope"` and the `scope` needed (RFC 6750 §3.1).',
    schema: {
      type: 'string',
      maxLength: 500,
      pattern: '^Bearer ',
      example: WWW_AUTHENTICATE,
    },
  },
  'Access-Control-Expose-Headers': {
    description:
      'CORS (API.md §9): the response headers a browser script may read, sent with `Access-Control-Allow-Origin`.',
    schema: { type: 'string', maxLength: 1000, pattern: '^[A-Za-z0-9-]+(, ?[A-Za-z0-9-]+)*$' },
  },
  Vary: {
    description:
      'API.md §5: the answer depends on the credentials and the `Origin`, so a shared cache keeps one copy per caller.',
    schema: {
      type: 'string',
      maxLength: 200,
      pattern: '^[A-Za-z0-9-]+(, ?[A-Za-z0-9-]+)*$',
      example: 'Origin, Authorization, X-API-Key',
    },
  },
  'Cache-Control': {
    description:
      'Every answer may be stored by the client only, and revalidated each time: a GET\'s (API.md §5), and errors and the answers to writes alike, so no cache reuses a `404` once the resource exists.',
    schema: { type: 'string', maxLength: 32, enum: ['private, no-cache'] },
  },
  ETag: {
    description:
      "Strong validator: a resource's `version` in quotes, or a hash of a collection page. Send it back in `If-Match` or `If-None-Match`.",
    schema: { type: 'string', maxLength: 29, pattern: '^"[A-Za-z0-9_-]{1,27}"$', example: '"3"' },
  },
  Link: {
    description:
      'RFC 8288 links: `rel="next"` and `rel="prev"` on a collection page (the URLs of `pagination`); on /api/v1 once API_V1_SUNSET is set, also `rel="successor-version"` (the same path under /api/v2) and `rel="deprecation"`.',
    // the next and prev links, and v1's two short deprecation links
    schema: { type: 'string', maxLength: 2 * MAX_LINK_LENGTH + 1024, pattern: '^<[^>]+>' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer, a success or a problem, is the replay of an earlier POST with the same `Idempotency-Key` (API.md §6).',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: {
    description: 'The URL of the created resource.',
    schema: {
      type: 'string',
      format: 'uri-reference',
      maxLength: 2048,
      example: '/api/v1/products/0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11',
    },
  },
};

/** API.md §11: sent on every /api/v1 answer once API_V1_SUNSET is set (with `Link`). */
export const DEPRECATION_HEADERS: Json = {
  Deprecation: {
    description: 'RFC 9745: `@<unix seconds>`, since when /api/v1 is deprecated.',
    schema: {
      type: 'string',
      maxLength: 21,
      pattern: '^@\\d{1,20}$',
      example: `@${Math.floor(V1_DEPRECATED_AT.getTime() / 1000)}`,
    },
  },
  Sunset: {
    description: 'RFC 8594: the HTTP-date after which /api/v1 may stop answering.',
    schema: {
      type: 'string',
      maxLength: 29,
      pattern: '^[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$',
      example: 'Wed, 30 Jun 2027 00:00:00 GMT',
    },
  },
};
