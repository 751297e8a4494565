import type { IncomingMessage, ServerResponse } from 'node:http';
import { etagForBody, matchesIfNoneMatch } from './etag';

type End = (...args: unknown[]) => ServerResponse;

/**
 * The caching rules of API.md §5 (response-hooks.ts) for answers Fastify does not send:
 * the OAuth server's, which oidc-provider writes to the raw response. A `200` to a GET
 * whose body is written in one `end()` (its metadata and key set) gets a strong ETag and
 * `Cache-Control: private, no-cache`, and a matching If-None-Match is `304` with no body.
 * An answer that says how to cache itself (the sign-in page is `no-store`) is left alone.
 */
export function conditionalRawGet(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET') return;
  const end = res.end.bind(res) as End;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (
      res.statusCode === 200 &&
      !res.headersSent &&
      !res.hasHeader('Cache-Control') &&
      (typeof chunk === 'string' || Buffer.isBuffer(chunk))
    ) {
      const etag = etagForBody(chunk);
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', 'private, no-cache');
      if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
        res.statusCode = 304;
        res.removeHeader('Content-Type');
        res.removeHeader('Content-Length');
        return end();
      }
    }
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
}
