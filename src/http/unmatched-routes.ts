import { NotFoundException } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

/**
 * A request no route matches is answered `404`, or `405` with `Allow`, before its body is
 * read (API.md §1). Fastify parses the body for its not-found handler too, so a bad body
 * on an unknown route used to win: a `415`, `400` or `413` that hid that the route does
 * not exist, or that the path takes other methods. The answer is the one Nest's own
 * not-found handler leads to: the same NotFoundException, made a problem by ProblemFilter
 * (`unmatchedRoute`). Registered after the CORS hook, so a foreign Origin is refused
 * first, on any path, and after the OAuth server's, which answers its own paths.
 */
export function answerUnmatchedBeforeBody(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    done(request.is404 ? new NotFoundException() : undefined);
  });
}
