import { Problem } from '../problems/problem';

/**
 * The longest `If-Match` or `If-None-Match` the OpenAPI documents promise an answer to.
 * Any value is answered (`412` or the full answer when it matches nothing); the bound is
 * what fits: Node refuses a request whose request line and headers together pass 16 KiB
 * (`400 bad_request`), so half of that leaves room for the rest of a request.
 */
export const MAX_PRECONDITION_LENGTH = 8192;

/**
 * How many times the request sent the header `name` (lower case). Node joins most repeated
 * headers into one value (`a, b`), so a header that must come once is counted here.
 */
export function headerFieldCount(rawHeaders: string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === name.length && rawHeaders[i].toLowerCase() === name) count += 1;
  }
  return count;
}

/** `400 bad_request` naming the header in `errors`, e.g. `Host must be sent (HTTP/1.1).` */
export function headerProblem(name: string, message: string): Problem {
  return new Problem('bad_request', `${name} ${message}.`, [{ field: name, message }]);
}
