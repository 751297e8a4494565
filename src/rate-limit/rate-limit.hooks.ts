import { Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config';
import { baseUrl } from '../http/base-url';
import type { Problem } from '../http/problem';
import { toProblem } from '../http/problem-mapping';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../http/problem-response';
import { isRateLimitedPath, type RateLimitState, writeRateLimitHeaders } from './rate-limit-state';
import { RateLimiter } from './rate-limiter';

const logger = new Logger('RateLimit');

/**
 * Every /api answer carries the rate-limit headers, errors included (API.md §8). The guard
 * counts each request that reaches a handler; this hook counts the ones refused before it
 * (401, 403, an unknown route, a body the parser refused, a foreign Origin, a CORS
 * preflight), by principal when authentication got that far and by client IP otherwise,
 * and writes the headers on the way out, where every answer passes.
 */
export function registerRateLimitHooks(
  fastify: FastifyInstance,
  limiter: RateLimiter,
  config: AppConfig,
): void {
  // A callback hook: most requests were counted by the guard and only need their headers.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!isRateLimitedPath(request.url) || request.rateLimit === null) return done(null, payload);
    if (request.rateLimit !== undefined) {
      writeRateLimitHeaders(reply, request.rateLimit);
      return done(null, payload);
    }
    void countRefused(limiter, request).then((state) => {
      let body = payload;
      if (state) {
        if (state.exceeded && reply.statusCode !== 429) {
          // No handler ran for this request (the guard counts every one that does), so
          // nothing happened that answering 429 instead would hide.
          body = answerRateLimited(request, reply, config);
        }
        writeRateLimitHeaders(reply, state);
      }
      done(null, body);
    });
  });
}

/**
 * Counts a request refused before any handler (this hook's, and the URLs the router
 * refuses, framework-errors.ts). Undefined when it could not be counted: counting must
 * never cost the caller its answer, so the failure is logged and the answer goes out
 * without the headers.
 */
export function countRefused(
  limiter: RateLimiter,
  request: FastifyRequest,
): Promise<RateLimitState | undefined> {
  return limiter.count(request).catch((error: unknown) => {
    logger.error({ err: error, requestId: request.id }, 'Could not count a request');
    return undefined;
  });
}

/** The `429 rate_limited` answer of a request past its budget, wherever it is refused. */
export const rateLimitedProblem = (): Problem => toProblem(new ThrottlerException()) as Problem;

function answerRateLimited(request: FastifyRequest, reply: FastifyReply, config: AppConfig) {
  const problem = rateLimitedProblem();
  for (const header of ['allow', 'www-authenticate', 'content-length']) {
    void reply.removeHeader(header);
  }
  void reply.code(problem.status).header('Content-Type', PROBLEM_CONTENT_TYPE);
  return JSON.stringify(problemBody(problem, request, baseUrl(request, config.publicUrl)));
}
