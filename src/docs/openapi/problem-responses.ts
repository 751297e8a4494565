import { ERROR_CODES, ErrorCode } from '../../http/error-codes';
import type { Document, Json } from './openapi-shape';
import { operations } from './openapi-shape';

const RATE_LIMIT_HEADERS: Json = {
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

/** Reusable problem responses, one per HTTP status, listing the codes each may carry. */
const RESPONSES: Record<string, { name: string; codes: ErrorCode[] }> = {
  '400': { name: 'BadRequest', codes: ['bad_request', 'invalid_json'] },
  '401': { name: 'Unauthorized', codes: ['unauthenticated', 'invalid_token'] },
  '403': { name: 'Forbidden', codes: ['forbidden', 'origin_not_allowed'] },
  '404': { name: 'NotFound', codes: ['not_found'] },
  '409': { name: 'Conflict', codes: ['conflict', 'insufficient_stock', 'invalid_status_transition', 'idempotency_key_in_use'] },
  '412': { name: 'PreconditionFailed', codes: ['precondition_failed'] },
  '413': { name: 'PayloadTooLarge', codes: ['payload_too_large'] },
  '415': { name: 'UnsupportedMediaType', codes: ['unsupported_media_type'] },
  '422': { name: 'ValidationFailed', codes: ['validation_failed', 'idempotency_key_reused'] },
  '429': { name: 'TooManyRequests', codes: ['rate_limited'] },
  '500': { name: 'InternalError', codes: ['internal_error'] },
};

/**
 * Every operation documents the problems it can answer (API.md §7, §12), derived from
 * what it is: authenticated, has a body, a path parameter, If-Match. Handlers declare
 * only their success answers.
 */
export function addProblemResponses(doc: Document): void {
  doc.components ??= {};
  doc.components.responses = { ...(doc.components.responses ?? {}), ...problemResponseComponents() } as never;
  for (const { path, method, operation } of operations(doc)) {
    const responses = (operation.responses ??= {}) as Json;
    const parameters = (operation.parameters ?? []) as Json[];
    const statuses = new Set(['429', '500']);
    if (parameters.some((p) => p.in === 'query') || operation.requestBody) statuses.add('400');
    if (operation.security) statuses.add('401').add('403');
    if (path.includes('{')) statuses.add('404');
    if (operation.requestBody) statuses.add('413').add('415').add('422');
    if (method === 'post' || method === 'put' || method === 'patch') statuses.add('409');
    if (parameters.some((p) => p.in === 'header' && p.name === 'If-Match')) statuses.add('412');
    for (const status of [...statuses].sort()) {
      responses[status] ??= { $ref: `#/components/responses/${RESPONSES[status].name}` };
    }
    for (const [status, response] of Object.entries(responses)) {
      if (/^2/.test(status) && !('$ref' in (response as Json))) {
        const r = response as Json;
        r.headers = { ...RATE_LIMIT_HEADERS, ...((r.headers as Json | undefined) ?? {}) };
      }
    }
  }
}

function problemResponseComponents(): Json {
  return Object.fromEntries(
    Object.entries(RESPONSES).map(([status, { name, codes }]) => [
      name,
      {
        description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].title}`).join('; '),
        headers: {
          ...(status === '429' || status === '500' ? {} : RATE_LIMIT_HEADERS),
          ...(status === '429' ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
        },
        content: {
          'application/problem+json': {
            schema: { $ref: '#/components/schemas/Problem' },
            example: exampleProblem(codes[0]),
          },
        },
      },
    ]),
  );
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
