import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES } from './error-codes';
import { fitted, type Problem, PROBLEM_LIMITS } from './problem';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * The RFC 9457 body of API.md §7 for `problem`, as seen by `request` (its URL and id; a
 * request refused by the HTTP parser has only those).
 */
export function problemBody(
  problem: Problem,
  request: Pick<FastifyRequest, 'url' | 'id'>,
  origin: string,
) {
  const entry = ERROR_CODES[problem.code];
  return {
    type: `${origin}/docs/errors/${problem.code}`,
    title: entry.title,
    status: entry.status,
    detail: problem.detail ?? entry.title,
    instance: fitted(request.url.split('?')[0], PROBLEM_LIMITS.instance),
    code: problem.code,
    requestId: String(request.id),
    ...(problem.errors && problem.errors.length > 0 ? { errors: problem.errors } : {}),
  };
}

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  problem: Problem,
  origin: string,
): void {
  // A handler can fail after naming what it created (its transaction did not commit, say):
  // nothing was created, and no problem has a Location.
  void reply
    .removeHeader('Location')
    .status(problem.status)
    .headers(problem.headers)
    .header('Content-Type', PROBLEM_CONTENT_TYPE)
    // A Buffer, because Fastify appends `; charset=utf-8` to any JSON type sent as a
    // string, and API.md §7 names the media type exactly.
    .send(Buffer.from(JSON.stringify(problemBody(problem, request, origin))));
}
