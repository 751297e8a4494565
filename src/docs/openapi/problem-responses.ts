import { MAX_PRECONDITION_LENGTH } from '../../http/input/header-fields';
import { ERROR_CODES, ErrorCode } from '../../http/problems/error-codes';
import type { Document, Json } from './openapi-shape';
import { operations } from './openapi-shape';

const header = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

/**
 * What every /api answer carries (API.md §1, §5, §8, §9): the rate-limit headers (one
 * convention, see components.ts), CORS, the request id, `Vary` and `Cache-Control` (a
 * GET's, on errors and writes too: response-hooks.ts).
 */
const COMMON_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'Access-Control-Allow-Origin',
  'Access-Control-Expose-Headers',
  'X-Request-Id',
  'Vary',
  'Cache-Control',
];

/** A GET's answer (API.md §5): revalidate every time, with the ETag. */
const GET_HEADERS = ['ETag'];

/** `If-None-Match` on every GET (API.md §5): a match is `304` with no body. */
const IF_NONE_MATCH: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The `ETag` of a copy the client holds (or a comma list, or `*`): when it still matches, the answer is `304 Not Modified` without a body. A value that matches nothing, malformed ones included, gets the full answer.',
  schema: { type: 'string', maxLength: MAX_PRECONDITION_LENGTH },
};

/** Added to every answer of a deprecated version (API.md §11). */
const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'];

/**
 * A problem an operation itself answers is stored with its Idempotency-Key and replayed
 * (API.md §6); these responses are shared by every method, so the header is there too.
 */
const REPLAYABLE = ['Idempotent-Replayed'];

/** Reusable problem responses, one per HTTP status, listing the codes each may carry. */
const RESPONSES: Record<string, { name: string; codes: ErrorCode[]; headers?: string[] }> = {
  '400': { name: 'BadRequest', codes: ['bad_request', 'invalid_json'], headers: REPLAYABLE },
  '401': {
    name: 'Unauthorized',
    codes: ['unauthenticated', 'invalid_token'],
    headers: ['WWW-Authenticate'],
  },
  '403': {
    name: 'Forbidden',
    codes: ['forbidden', 'origin_not_allowed'],
    headers: ['WWW-Authenticate', ...REPLAYABLE],
  },
  '404': { name: 'NotFound', codes: ['not_found'], headers: REPLAYABLE },
  '409': {
    name: 'Conflict',
    codes: ['conflict', 'insufficient_stock', 'invalid_status_transition', 'idempotency_key_in_use'],
    // Retry-After: on idempotency_key_in_use for a request still running
    headers: [...REPLAYABLE, 'Retry-After'],
  },
  '412': { name: 'PreconditionFailed', codes: ['precondition_failed'] },
  '413': { name: 'PayloadTooLarge', codes: ['payload_too_large'] },
  '415': { name: 'UnsupportedMediaType', codes: ['unsupported_media_type'] },
  '422': {
    name: 'ValidationFailed',
    codes: ['validation_failed', 'idempotency_key_reused'],
    headers: REPLAYABLE,
  },
  '429': { name: 'TooManyRequests', codes: ['rate_limited'], headers: ['Retry-After'] },
  '500': { name: 'InternalError', codes: ['internal_error'] },
  '503': { name: 'ServiceUnavailable', codes: ['service_unavailable'], headers: ['Retry-After'] },
};

/** What a body can be refused with (API.md §1, §3). */
const BODY_STATUSES = ['413', '415', '422'];

export interface ResponseOptions {
  /** The version is deprecated: every answer carries Deprecation, Sunset and Link. */
  deprecated?: boolean;
}

/**
 * Every operation documents the problems it can answer (API.md §7, §12), derived from
 * what it is: authenticated, has a body, a path parameter, If-Match. Handlers declare
 * only their success answers; this adds the headers every answer carries.
 */
export function addProblemResponses(doc: Document, options: ResponseOptions = {}): void {
  const common = [...COMMON_HEADERS, ...(options.deprecated ? DEPRECATION_HEADERS : [])];
  doc.components ??= {};
  doc.components.responses = {
    ...(doc.components.responses ?? {}),
    ...problemResponseComponents(common),
  } as never;
  for (const { path, method, operation } of operations(doc)) {
    const responses = (operation.responses ??= {}) as Json;
    dropGuessedSuccess(responses);
    const parameters = (operation.parameters ?? []) as Json[];
    // Any operation refuses an unknown query parameter with 400 (API.md §3) and answers
    // 503 while the database is out of reach. API.md §1's body rules hold for a body sent
    // to any operation but a GET, even one that ignores it (DELETE): over 1 MiB is 413,
    // another media type 415, a NUL character in it 422 (PostgreSQL text cannot hold
    // one). A GET's body is not read: RFC 9110 §9.3.1 gives it no meaning.
    const statuses = new Set(['400', '429', '500', '503']);
    if (method !== 'get') for (const status of BODY_STATUSES) statuses.add(status);
    if (operation.security) statuses.add('401').add('403');
    if (path.includes('{')) statuses.add('404');
    if (method === 'post' || method === 'put' || method === 'patch') statuses.add('409');
    const conditional = parameters.some((p) => p.in === 'header' && p.name === 'If-Match');
    if (conditional) statuses.add('412');
    for (const status of [...statuses].sort()) {
      responses[status] ??= { $ref: `#/components/responses/${RESPONSES[status].name}` };
    }
    if (method === 'get') {
      operation.parameters = [...parameters, IF_NONE_MATCH];
      responses['304'] = { $ref: '#/components/responses/NotModified' };
    }
    for (const [status, response] of Object.entries(responses)) {
      const r = response as Json;
      if ('$ref' in r) continue;
      const own = [...common];
      if (/^2/.test(status) && r.content) {
        // A GET's body always has one (its version or a hash); a write's when the resource
        // it answers with has a version (response-hooks, representation.hooks), or when
        // it takes If-Match: a status sub-resource answers with its resource's new ETag.
        if (method === 'get') own.push(...GET_HEADERS);
        else if (conditional || hasVersion(doc, r)) own.push('ETag');
      }
      if (status === '201') own.push('Location');
      r.headers = { ...headerRefs(own), ...((r.headers) ?? {}) };
    }
  }
}

/** The JSON body of `response` is a schema of the document with a `version` property. */
function hasVersion(doc: Document, response: Json): boolean {
  const schema = ((response.content as Json)['application/json'] as Json | undefined)?.schema as
    | Json
    | undefined;
  const ref = schema?.$ref as string | undefined;
  const named = ref ? (doc.components?.schemas?.[ref.split('/').pop() as string] as Json) : schema;
  return Boolean((named?.properties as Json | undefined)?.version);
}

/**
 * The swagger plugin adds a bare `200` (no description, no content) to each handler from
 * its return type, unless it sees `@HttpCode` on the method itself; handlers that set
 * their status through a composed decorator (`ApiDeleted`: 204) would document a 200
 * they never send.
 */
function dropGuessedSuccess(responses: Json): void {
  const successes = Object.keys(responses).filter((status) => /^2/.test(status));
  if (successes.length < 2) return;
  for (const status of successes) {
    const r = responses[status] as Json;
    if (!r.description && !r.content && !('$ref' in r)) delete responses[status];
  }
}

function headerRefs(names: string[]): Json {
  return Object.fromEntries(names.map((name) => [name, header(name)]));
}

function problemResponseComponents(common: string[]): Json {
  const notModified: Json = {
    description:
      'Not Modified: `If-None-Match` matched the current `ETag`; no body. A collection page keeps its `Link`.',
    headers: headerRefs([...common, ...GET_HEADERS, 'Link']),
  };
  return Object.fromEntries([
    ['NotModified', notModified],
    ...Object.entries(RESPONSES).map(([, { name, codes, headers = [] }]): [string, Json] => [
      name,
      {
        description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].title}`).join('; '),
        headers: headerRefs([...common, ...headers]),
        content: {
          'application/problem+json': {
            schema: { $ref: '#/components/schemas/Problem' },
            example: exampleProblem(codes[0]),
          },
        },
      },
    ]),
  ]);
}

function exampleProblem(code: ErrorCode): Json {
  const entry = ERROR_CODES[code];
  return {
    type: `https://api.example.com/docs/errors/${code}`,
    title: entry.title,
    status: entry.status,
    detail: entry.title,
    instance: '/api/v1/products',
    code,
    requestId: '0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11',
  };
}
