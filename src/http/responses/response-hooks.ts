import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { baseUrl } from './base-url';
import { HeaderAccess, REVALIDATE_EACH_TIME, revalidate } from './etag';

/** When /api/v2 was released and /api/v1 became deprecated (RFC 9745 `Deprecation`). */
export const V1_DEPRECATED_AT = new Date('2026-11-22T00:00:00Z');

/**
 * What every answer varies on (API.md §5): the credentials, since who asks decides what
 * the answer is (rows, 401, 403), and `Origin`, for CORS.
 */
export const VARY = 'Origin, Authorization, X-API-Key';
const VARY_FIELDS = VARY.split(', ');

/**
 * Transport rules every answer follows, errors and 404s included (API.md §1, §5, §11):
 * request id, `Vary`, `Cache-Control`, caching validators and 304, v1 deprecation
 * headers. (`nosniff` and the absence of `X-Powered-By` are helmet's, security-headers.ts.)
 * A callback hook, not an async one: it runs on every answer and has nothing to wait for.
 */
export function registerResponseHooks(fastify: FastifyInstance, config: AppConfig): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    writeTransportHeaders(request, reply, config);
    if ((request.method === 'GET' || request.method === 'HEAD') && reply.statusCode === 200) {
      done(null, conditionalGet(request, reply, payload));
    } else {
      done(null, payload);
    }
  });
}

/**
 * The headers of API.md §1, §5 and §11 that do not depend on the answer's body (and
 * `Cache-Control` where the answer has none of its own). Also written on the answers no
 * hook sees (framework-errors.ts).
 */
export function writeTransportHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  config: AppConfig,
): void {
  void reply.header('X-Request-Id', request.id);
  varyOnCredentials(reply);
  // An error to a GET must not be reused either: a 404 is heuristically cacheable
  // (RFC 9111 §4.2.2), and a stored one would hide the resource once it is created.
  if (!reply.hasHeader('cache-control')) void reply.header('Cache-Control', REVALIDATE_EACH_TIME);
  if (config.apiV1Sunset && request.url.startsWith('/api/v1')) {
    const origin = baseUrl(request, config.publicUrl);
    for (const [name, value] of deprecationHeaders(request.url, origin, config.apiV1Sunset)) {
      const existing = name === 'Link' ? reply.getHeader('link') : undefined;
      void reply.header(name, existing ? `${String(existing)}, ${value}` : value);
    }
  }
}

const FASTIFY_HEADERS: HeaderAccess<FastifyReply> = {
  get: (reply, name) => reply.getHeader(name),
  set: (reply, name, value) => void reply.header(name, value),
  remove: (reply, name) => void reply.removeHeader(name),
};

function conditionalGet(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (!revalidate(FASTIFY_HEADERS, reply, payload, request.headers['if-none-match'])) {
    return payload;
  }
  void reply.code(304);
  // a file's stream (the docs UI's) is open already: closed, not left to hold its handle
  if (payload instanceof Readable) payload.destroy();
  // No body, and no Content-Length (RFC 9110 §8.6: only the length a 200 would have).
  // Fastify counts a string into Content-Length, even an empty one; its HEAD handler
  // counts anything but a stream, so HEAD gets an empty one, which it drains.
  return request.method === 'HEAD' ? Readable.from([]) : null;
}

/**
 * `Vary: Origin, Authorization, X-API-Key`. @fastify/cors has put `Origin` there on
 * almost every answer, so that case is one comparison and a constant, no allocation;
 * anything else (a preflight's `Access-Control-Request-Headers`) is merged, keeping what
 * is there.
 */
function varyOnCredentials(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined || vary === 'Origin') {
    void reply.header('Vary', VARY);
    return;
  }
  if (vary === '*') return;
  const current = String(vary)
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const known = new Set(current.map((f) => f.toLowerCase()));
  const added = VARY_FIELDS.filter((f) => !known.has(f.toLowerCase()));
  void reply.header('Vary', [...current, ...added].join(', '));
}

/**
 * What every `/api/v1` answer carries while API_V1_SUNSET is set (API.md §11), for `url`
 * (path and query) of that version: also written on the answer to bytes that are no
 * request (client-errors.ts).
 */
export function deprecationHeaders(url: string, origin: string, sunset: Date): [string, string][] {
  // the same resource under v2 (both versions serve the same paths); the query is left
  // out, as v1's may hold what v2 refuses (`page`)
  const successor = `/api/v2${url.split('?')[0].slice('/api/v1'.length)}`;
  return [
    ['Deprecation', `@${Math.floor(V1_DEPRECATED_AT.getTime() / 1000)}`],
    ['Sunset', sunset.toUTCString()],
    [
      'Link',
      `<${origin}${successor}>; rel="successor-version", ` +
        `<${origin}/docs/changelog>; rel="deprecation"; type="text/html"`,
    ],
  ];
}
