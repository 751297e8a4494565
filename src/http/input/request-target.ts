import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { headerFieldCount, headerProblem } from './header-fields';
import { Problem } from '../problems/problem';
import { holdsNul, NUL_MESSAGE, withNulEscaped } from './nul-character';

/** `http(s)://authority` at the start of an absolute-form target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;
/**
 * A percent-encoded unreserved character (RFC 3986 §2.3): a letter, digit, `-`, `_` or
 * `~`. `%2E` stays encoded: decoding it could make a dot segment of the path.
 */
const ENCODED_UNRESERVED = /%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2D|5F|7E)/gi;

/**
 * Fastify's `rewriteUrl`: every request target in one canonical form before routing, so
 * that what the router serves and what the hooks decide by path (the rate limit on
 * `/api/*`, v1's deprecation headers, v2's cursor-only pages, the links of a page) agree.
 * Without it `/%61pi/v1/products` reached the route while the hooks saw no `/api` path,
 * and an absolute-form target (`GET http://host/api/… HTTP/1.1`) did the same.
 *
 * - An `http` or `https` absolute-form target becomes its path and query; its authority
 *   replaces `Host`, as RFC 9112 §3.2.2 requires of an origin server, when the request
 *   sent a valid one (a missing or invalid `Host` is still `400`, RFC 9112 §3.2). Another
 *   scheme is left to the router, which serves no such path.
 * - In the path, percent-encoded unreserved characters are decoded (RFC 3986 §6.2.2.2:
 *   `%61` and `a` are the same URI). Other escapes are left to the router.
 */
export function canonicalRequestTarget(request: IncomingMessage): string {
  let target = request.url ?? '/';
  if (target.charCodeAt(0) !== 0x2f /* '/' */) {
    const absolute = ABSOLUTE_FORM.exec(target);
    if (!absolute) return target; // `*` (OPTIONS *), or something the router refuses
    const sent = request.headers.host;
    if (absolute[1] !== '' && sent !== undefined && isHost(sent)) {
      request.headers.host = absolute[1];
    }
    target = target.slice(absolute[0].length);
    if (target.charCodeAt(0) !== 0x2f) target = `/${target}`;
  }
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (!path.includes('%')) return target;
  const decoded = path.replace(ENCODED_UNRESERVED, (escape) =>
    String.fromCharCode(Number.parseInt(escape.slice(1), 16)),
  );
  return query === -1 ? decoded : decoded + target.slice(query);
}

/**
 * `host[:port]`: a registered name (letters, digits, `.`, `-`, `_`, `~`), an IPv4 address
 * or a bracketed IPv6 literal, and a port of at most five digits, 1 to 65535.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9._~-]{1,253})(?::(\d{1,5}))?$/;

/**
 * Refuses, before anything else reads them, a `Host` or a trusted `X-Forwarded-Proto`
 * links cannot be built on and a query string that is not percent-encoded UTF-8:
 * `400 bad_request` naming the header or the parameter.
 *
 * The host the links of an answer are built on, when PUBLIC_URL is unset (base-url.ts),
 * must be one (RFC 9112 §3.2: a missing-in-1.1, repeated or invalid `Host` is `400`).
 * Unchecked, `Host: evil>; rel="next", <http://x` wrote a link of its own into `Link`
 * and URLs that are not URLs into `pagination` and problem `type`. With `TRUST_PROXY`
 * the host may come from `X-Forwarded-Host` (request.host); it is checked the same way.
 * A request without any (HTTP/1.0, a load balancer's health check) is served; its links,
 * like those of the `400`, use the address it came in on.
 */
export function refuseMalformedTargets(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    done(hostProblem(request) ?? protocolProblem(request) ?? queryProblem(request.url));
  });
}

/** `host` is a name or address with at most a valid port: links can be built on it. */
export function isHost(host: string): boolean {
  const match = HOST.exec(host);
  return match !== null && (match[1] === undefined || validPort(Number(match[1])));
}

const validPort = (port: number) => port >= 1 && port <= 65535;

function hostProblem(request: FastifyRequest): Problem | undefined {
  const host = request.host as string | undefined;
  if (host === undefined || host === '') {
    // HTTP/1.1 requires one (the server lets it through to be answered here, as a problem)
    if (request.raw.httpVersion !== '1.1') return undefined;
    return headerProblem('Host', 'must be sent (HTTP/1.1)');
  }
  const repeated = headerFieldCount(request.raw.rawHeaders, 'host') > 1;
  if (!repeated && isHost(host)) return undefined;
  // the answer's own links (problem `type`, v1's deprecation links) fall back to the
  // address the request came in on
  delete request.raw.headers.host;
  delete request.raw.headers['x-forwarded-host'];
  return headerProblem(
    'Host',
    repeated ? 'must be sent once' : 'must be a host name or address and a port',
  );
}

/**
 * The scheme links are built on: `http` or `https`. Only a trusted proxy's
 * `X-Forwarded-Proto` can make it anything else (`javascript`); refused like a bad Host,
 * and the answer's own links fall back to the connection's scheme.
 */
function protocolProblem(request: FastifyRequest): Problem | undefined {
  const protocol = request.protocol as string;
  if (protocol === 'http' || protocol === 'https') return undefined;
  delete request.raw.headers['x-forwarded-proto'];
  return headerProblem('X-Forwarded-Proto', 'must be http or https');
}

/**
 * A query string's escapes must decode to UTF-8, as the path's must (the router's `400`),
 * and to no NUL character, which PostgreSQL text cannot hold: refused here for every path,
 * the authorization server's included, which would otherwise pass `client_id=%00` to a
 * query and answer 500. Fastify's query parser keeps a malformed escape (`%ZZ`, `%FF`) as
 * it came, so `q=%ZZ` searched for the three characters. The parameter it is in is named.
 */
function queryProblem(url: string): Problem | undefined {
  const start = url.indexOf('?');
  if (start === -1 || !url.includes('%', start)) return undefined;
  for (const part of url.slice(start + 1).split('&')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return parameterProblem(part.split('=')[0], MALFORMED_ESCAPE);
    }
    if (holdsNul(decoded)) return parameterProblem(part.split('=')[0], NUL_MESSAGE);
  }
  return undefined;
}

const MALFORMED_ESCAPE = 'must be percent-encoded UTF-8 (a % followed by two hex digits)';

/** `400` naming the parameter `name` (as sent), decoded where it can be, NUL escaped. */
function parameterProblem(name: string, message: string): Problem {
  let field = name; // as sent when the name itself is the malformed part
  try {
    field = withNulEscaped(decodeURIComponent(name));
  } catch {
    // keep it as sent
  }
  return new Problem('bad_request', `The query parameter ${field} ${message}.`, [
    { field, message },
  ]);
}
