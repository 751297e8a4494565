import { ThrottlerException } from '@nestjs/throttler';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config';
import { baseUrl } from '../http/responses/base-url';
import { corsPolicy } from '../http/responses/cors';
import type { Problem } from '../http/problems/problem';
import { toProblem } from '../http/problems/problem-mapping';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../http/problems/problem-response';
import { isRateLimitedPath, type RateLimitState, writeRateLimitHeaders } from './rate-limit-state';
import { RateLimiter } from './rate-limiter';

/**
 * Every /api answer carries the rate-limit headers, errors included (API.md §8). The guard
 * counts each request that reaches a handler; this hook counts the ones refused before it
 * (401, 403, an unknown route, a body the parser refused, a foreign Origin, a CORS
 * preflight), by the principal of its credentials when they verify and by client IP
 * otherwise, and writes the headers on the way out, where every answer passes. Past the
 * budget such a refusal is answered 429, except a foreign Origin's (`refusedPastBudget`).
 */
export function registerRateLimitHooks(
  fastify: FastifyInstance,
  limiter: RateLimiter,
  config: AppConfig,
): void {
  const cors = corsPolicy(config);
  // A callback hook: most requests were counted by the guard and only need their headers.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!isRateLimitedPath(request.url) || request.rateLimit === null) return done(null, payload);
    if (request.rateLimit !== undefined) {
      writeRateLimitHeaders(reply, request.rateLimit);
      return done(null, payload);
    }
    void limiter.countRefused(request).then((state) => {
      let body = payload;
      if (state) {
        if (reply.statusCode !== 429 && refusedPastBudget(state, cors.refuses(request))) {
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
 * Whether a request answered before any handler ran is answered `429` instead: when its
 * count took its caller past the budget, unless a foreign Origin was refused. API.md §9
 * gives every such request `403 origin_not_allowed`, and that answer is final, where a
 * 429 would send the client back after the window to meet the same 403. It is counted
 * all the same.
 */
export const refusedPastBudget = (state: RateLimitState, originRefused: boolean): boolean =>
  state.exceeded && !originRefused;

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
