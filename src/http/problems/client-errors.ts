import { randomUUID } from 'node:crypto';
import { METHODS, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import type { Logger } from 'pino';
import type { AppConfig } from '../../config/app-config';
import type { Metrics } from '../../metrics/metrics';
import { UNMATCHED_ROUTE } from '../../metrics/metrics.hooks';
import { Problem } from './problem';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem-response';
import { localAuthority } from '../responses/base-url';
import { ACCEPTED_REQUEST_ID } from '../request-id';
import { isHost } from '../input/request-target';
import { REVALIDATE_EACH_TIME } from '../responses/etag';
import { deprecationHeaders, VARY } from '../responses/response-hooks';
import { SecurityHeaders } from '../responses/security-headers';

/** A request line's target we can name as the problem's `instance`: an origin-form path. */
const ORIGIN_FORM = /^\/[\x21-\x7e]*$/;
/** A v1 path that can stand in a `Link` (no `<`, `>` or `"` to end its reference early). */
const V1_PATH = /^\/api\/v1(?:\/[^<>"]*)?$/;
/** What went wrong, by Node's error code; anything else "is not valid HTTP/1.1". */
const DETAILS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request line and headers exceed 16 KiB.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request was not received in full in time.',
  HPE_INVALID_METHOD: 'The request method is not an HTTP method.',
};
/** A request line's method worth logging: an HTTP token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;

/**
 * Fastify's `clientErrorHandler`: the answer to bytes Node's HTTP parser refuses before
 * any request exists (an unknown method, a malformed Content-Length or chunk size, headers
 * over Node's 16 KiB limit, a request line that is not HTTP). Fastify's default writes
 * its own JSON without a request id; API.md §1 and §7 ask for a problem with one, and the
 * security headers. The connection is closed after the answer, as the parser cannot find
 * where the next request starts.
 *
 * Everything is `400 bad_request`: the contract's codes have one status each, and none is
 * 431 or 408 (headers too large, a request not received in time). The detail says which.
 * No rate-limit headers: there is no request to count, nor a caller to count it for. The
 * answer is counted in `/metrics`, as every other is.
 */
export class ClientErrors {
  private readonly security: string;
  private metrics?: Metrics;

  constructor(
    private readonly config: AppConfig,
    private readonly logger: Logger | undefined,
  ) {
    // the parser refused the request line: no path to choose the pages' headers by
    this.security = new SecurityHeaders(config).api
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
  }

  /** Counts these answers in `/metrics` (route `unmatched`), once the app's Metrics exist. */
  countIn(metrics: Metrics): void {
    this.metrics = metrics;
  }

  /** Fastify's `clientErrorHandler` option. */
  readonly handler = (error: ConnectionError, socket: Socket): void => {
    // a connection reset or closed meanwhile: nobody to answer
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const started = performance.now();
    const { config } = this;
    // a Buffer at run time (Node's `clientError`), whatever Fastify's typings say
    const head = headOf(error.rawPacket);
    const id = head.requestId ?? randomUUID();
    const url = head.target ?? '/';
    const problem = new Problem(
      'bad_request',
      DETAILS[error.code] ?? 'The request is not valid HTTP/1.1.',
    );
    const origin =
      config.publicUrl ??
      `${config.tls ? 'https' : 'http'}://${head.host ?? localAuthority(socket)}`;
    const body = JSON.stringify(problemBody(problem, { url, id }, origin));
    const deprecation =
      config.apiV1Sunset && V1_PATH.test(url)
        ? deprecationHeaders(url, origin, config.apiV1Sunset)
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('')
        : '';
    // the shape of every request's line (request-log.ts), with the parser's error code
    this.logger?.info(
      {
        reqId: id,
        method: head.method,
        url,
        statusCode: problem.status,
        remoteAddress: socket.remoteAddress,
        parserError: error.code,
      },
      'request completed',
    );
    const answer = () => {
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 400 Bad Request\r\n` +
            `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n` +
            `X-Request-Id: ${id}\r\n` +
            // as on every other answer (response-hooks.ts): an error is no answer to keep
            `Cache-Control: ${REVALIDATE_EACH_TIME}\r\n` +
            `Vary: ${VARY}\r\n` +
            deprecation +
            this.security +
            `Connection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy();
      this.metrics?.recordHttp(
        // any token the client sent would be a series of its own
        head.method !== undefined && METHODS.includes(head.method) ? head.method : 'other',
        UNMATCHED_ROUTE,
        problem.status,
        (performance.now() - started) / 1000,
      );
    };
    // A pipelined request received in full before the refused bytes may still be running:
    // its answer goes out in full first (writing now would cut into it, destroying would
    // cut it off). A request whose own body the parser refused gets the 400 at once.
    const inFlight = (socket as SocketWithResponse)._httpMessage;
    if (inFlight && !inFlight.writableFinished && inFlight.req.complete) {
      if (answering.has(socket)) return;
      answering.add(socket);
      // 'close' comes after the answer is written, or when the connection is gone
      inFlight.once('close', answer);
    } else {
      answer();
    }
  };
}

/** Node's HTTP server keeps the response being written on a connection on its socket. */
type SocketWithResponse = Socket & { _httpMessage?: ServerResponse | null };
/** Connections whose refusal waits for an earlier answer; the parser may report again. */
const answering = new WeakSet<Socket>();

/** What can be read from the start of the refused bytes: the path, Host and X-Request-Id. */
function headOf(raw: unknown): Partial<Record<'method' | 'target' | 'host' | 'requestId', string>> {
  if (!Buffer.isBuffer(raw)) return {};
  // latin1: one character per byte, whatever the bytes are
  const lines = raw
    .subarray(0, 16 * 1024)
    .toString('latin1')
    .split('\r\n');
  const [method, target] = lines[0].split(' ');
  const header = (name: string) =>
    lines
      .slice(1)
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim();
  const host = header('host');
  const requestId = header('x-request-id');
  return {
    method: TOKEN.test(method) ? method : undefined,
    target: target && ORIGIN_FORM.test(target) ? target.split('?')[0] : undefined,
    // worth repeating in the problem's `type` link only when it is a host
    host: host && isHost(host) ? host : undefined,
    requestId: requestId && ACCEPTED_REQUEST_ID.test(requestId) ? requestId : undefined,
  };
}
