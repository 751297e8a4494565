import type { IncomingMessage } from 'node:http';
import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { withoutSecrets } from './log-redaction';
import { routePatternOf } from './routing/route-pattern';

/** Errors the app answered itself (problem filter, OAuth server), by request. */
const serverErrors = new WeakMap<IncomingMessage, unknown>();

/**
 * Hands the error behind an answer to the request's log line: Nest's exception filter
 * and the OAuth server answer failures themselves, so Fastify never sees the error.
 * Keyed by Node's request, which Fastify's request and oidc-provider's context both hold.
 */
export function recordServerError(request: IncomingMessage, error: unknown): void {
  serverErrors.set(request, error);
}

/**
 * Fastify's request logging (Fastify 5 `logController`), reduced to one line per
 * completed request instead of the `incoming request` / `request completed` pair: the
 * request id (`reqId`, the X-Request-Id), method, URL without secrets, route pattern,
 * status, latency and who called. Answers of 500 and above, and requests that failed
 * after their answer started, are logged at error level with the error behind them.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const principal = request.user;
    const line = {
      method: request.method,
      url: withoutSecrets(request.url),
      // undefined (left out) when no route matched
      route: routePatternOf(request),
      statusCode: reply.statusCode,
      // milliseconds
      responseTime: Number(reply.elapsedTime.toFixed(1)),
      principal: principal && {
        subject: principal.subject,
        kind: principal.kind,
        role: principal.role,
      },
    };
    const failure = error ?? serverErrors.get(request.raw);
    if (failure !== undefined || reply.statusCode >= 500) {
      reply.log.error({ ...line, err: failure }, 'request failed');
    } else {
      reply.log.info(line, 'request completed');
    }
  }
}
