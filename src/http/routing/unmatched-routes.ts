import { NotFoundException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../problems/problem';

/**
 * The answer to a request no route serves (API.md §1): `404`, or `405` with `Allow` when
 * the path takes `allowed` methods. One wording for the API's routes (ProblemFilter) and
 * the authorization server's (oauth-routes.ts).
 */
export function unmatchedRouteProblem(method: string, url: string, allowed: string[]): Problem {
  if (allowed.length === 0) {
    return new Problem('not_found', `No route matches ${method} ${url.split('?')[0]}.`);
  }
  return new Problem(
    'method_not_allowed',
    `${method} is not supported here; use ${allowed.join(', ')}.`,
    undefined,
    { Allow: allowed.join(', ') },
  );
}

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
    done(servedByNoRoute(request) ? new NotFoundException() : undefined);
  });
}

/**
 * No route serves `request`: Fastify matched none (its not-found handler has no route
 * `url`), or it matched one with an empty parameter (`PUT /products/`), which Nest's
 * Fastify adapter hands to the not-found handler, but only once the body is parsed.
 */
export function servedByNoRoute(request: FastifyRequest): boolean {
  // is404: the route context has no url (`routeOptions.url`, which builds an object per read)
  return request.is404 || hasEmptyParameter(request.params as Record<string, unknown> | undefined);
}

/**
 * A match Nest's Fastify adapter sends to the not-found handler: a route parameter is
 * empty (`/products/`, `/products//x`); only the wildcard (`*`) may be.
 */
export function hasEmptyParameter(params: Record<string, unknown> | undefined): boolean {
  for (const name in params) if (params[name] === '' && name !== '*') return true;
  return false;
}
