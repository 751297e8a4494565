import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderAccess, revalidate } from './etag';

type End = (...args: unknown[]) => ServerResponse;

const RAW_HEADERS: HeaderAccess<ServerResponse> = {
  get: (res, name) => res.getHeader(name),
  set: (res, name, value) => void res.setHeader(name, value),
  remove: (res, name) => res.removeHeader(name),
};

/**
 * The caching rules of API.md §5 (`revalidate`, as response-hooks.ts applies them) for
 * answers Fastify does not send: the OAuth server's, which oidc-provider writes to the raw
 * response. A `200` to a GET whose body is written in one `end()` (its metadata and key
 * set) is revalidated like any other. An answer that says how to cache itself (the
 * sign-in page is `no-store`) is left alone.
 */
export function conditionalRawGet(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET') return;
  const end = res.end.bind(res) as End;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (
      res.statusCode === 200 &&
      !res.headersSent &&
      !res.hasHeader('Cache-Control') &&
      (typeof chunk === 'string' || Buffer.isBuffer(chunk)) &&
      revalidate(RAW_HEADERS, res, chunk, req.headers['if-none-match'])
    ) {
      res.statusCode = 304;
      return end();
    }
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
}
