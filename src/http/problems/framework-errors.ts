import proxyAddr from '@fastify/proxy-addr';
import type { FastifyError, FastifyReply, FastifyRequest, LogController } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import type { Metrics } from '../../metrics/metrics';
import { UNMATCHED_ROUTE } from '../../metrics/metrics.hooks';
import { isRateLimitedPath, writeRateLimitHeaders } from '../../rate-limit/rate-limit-state';
import { rateLimitedProblem, refusedPastBudget } from '../../rate-limit/rate-limit.hooks';
import type { RateLimiter } from '../../rate-limit/rate-limiter';
import { baseUrl } from '../responses/base-url';
import { CORS_EXPOSED_HEADERS, corsPolicy, originNotAllowed } from '../responses/cors';
import { Problem } from './problem';
import { sendProblem } from './problem-response';
import { recordServerError } from '../request-log';
import { writeTransportHeaders } from '../responses/response-hooks';
import { SecurityHeaders } from '../responses/security-headers';

/**
 * The answers to URLs Fastify's router refuses before any route matches (Fastify 5's
 * `frameworkErrors` option): a path that is not valid percent-encoding (`FST_ERR_BAD_URL`)
 * and a path parameter longer than the router's `maxParamLength`
 * (`FST_ERR_MAX_PARAM_LENGTH`). Without it Fastify writes its own JSON straight to the
 * socket. No hook, error handler or response listener exists for these requests, so this
 * does their part: the security headers and the CORS decision of the `onRequest` hooks,
 * the transport headers of `onSend`, the problem of `ProblemFilter`, the log line, the
 * metrics and, under `/api`, the rate limit: such a request is counted against the client
 * IP's budget (its credentials were never checked), told what remains, and answered `429`
 * past the budget, as any request refused before authentication is (rate-limit.hooks.ts).
 */
export class FrameworkErrors {
  private readonly security: SecurityHeaders;
  private readonly cors: ReturnType<typeof corsPolicy>;
  private readonly exposedHeaders = CORS_EXPOSED_HEADERS.join(', ');
  private metrics?: Metrics;
  private limiter?: RateLimiter;
  /** whose X-Forwarded-For to believe: TRUST_PROXY, as Fastify applies it to every other request */
  private readonly trustedProxy: (address: string, hop: number) => boolean;

  constructor(
    private readonly config: AppConfig,
    private readonly maxParamLength: number,
    private readonly logController: LogController,
  ) {
    this.security = new SecurityHeaders(config);
    this.cors = corsPolicy(config);
    this.trustedProxy =
      config.trustProxy === true ? () => true : proxyAddr.compile(config.trustProxy || []);
  }

  /**
   * Counts these answers in `/metrics` and against the caller's rate-limit budget, once
   * the application, its Metrics and its RateLimiter exist.
   */
  countIn(metrics: Metrics, limiter: RateLimiter): void {
    this.metrics = metrics;
    this.limiter = limiter;
  }

  /** Fastify's `frameworkErrors` option. */
  readonly handler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const started = performance.now();
    // Fastify builds these requests from its base Request class, which ignores
    // `trustProxy` (fastify.js, onBadUrl and onMaxParamLength): behind a trusted proxy,
    // `request.ip` would be the proxy's, and every client's refused URLs would share its
    // rate-limit budget. The client's address is taken as on every other request.
    Object.defineProperty(request, 'ip', { value: proxyAddr(request.raw, this.trustedProxy) });
    reply.raw.once('finish', () => {
      this.logController.requestCompleted(null, request, reply);
      this.metrics?.recordHttp(
        request.method,
        UNMATCHED_ROUTE,
        reply.statusCode,
        (performance.now() - started) / 1000,
      );
    });
    for (const [name, value] of this.security.for(request.url)) void reply.header(name, value);
    writeTransportHeaders(request, reply, this.config);
    // A foreign Origin is refused before anything else, as on every other request.
    const refused = this.cors.refuses(request);
    const origin = request.headers.origin;
    if (!refused && this.cors.allows(origin)) {
      void reply.header('Access-Control-Allow-Origin', origin);
      void reply.header('Access-Control-Expose-Headers', this.exposedHeaders);
    }
    const problem = refused ? originNotAllowed(request) : this.problemFor(error, request);
    if (!this.limiter || !isRateLimitedPath(request.url)) return this.send(request, reply, problem);
    void this.limiter.countRefused(request).then((state) => {
      const answer = state && refusedPastBudget(state, refused) ? rateLimitedProblem() : problem;
      if (state) {
        // the status first: a 429 gets Retry-After with the headers
        void reply.status(answer.status);
        writeRateLimitHeaders(reply, state);
      }
      this.send(request, reply, answer);
    });
  };

  private send(request: FastifyRequest, reply: FastifyReply, problem: Problem): void {
    sendProblem(reply, request, problem, baseUrl(request, this.config.publicUrl));
  }

  private problemFor(error: FastifyError, request: FastifyRequest): Problem {
    switch (error.code) {
      case 'FST_ERR_BAD_URL':
        return new Problem(
          'bad_request',
          'The path is not valid percent-encoding: each % must start an escape of two hexadecimal digits, and the escapes must decode to UTF-8.',
        );
      case 'FST_ERR_MAX_PARAM_LENGTH':
        // Longer than any id, SKU or code can be: no such resource exists.
        return new Problem(
          'not_found',
          `No resource is named by a path segment of more than ${this.maxParamLength} characters.`,
        );
      default:
        recordServerError(request.raw, error);
        return new Problem('internal_error', 'An unexpected error occurred.');
    }
  }
}
