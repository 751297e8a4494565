import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { FastifyRequest } from 'fastify';
import { Problem, ValidationProblem } from '../problems/problem';
import { memoByRoute } from '../routing/route-memo';
import { BODY_FIELD, UNKNOWN_FIELD } from './validation.pipe';

/** Methods whose body API.md §1 and §3 hold to their rules (a GET's is not read). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Input rules no single DTO can state. Unknown query parameters are 400 and unknown body
 * fields 422 on every route (API.md §3): routes with a query or body DTO have that
 * enforced by the validation pipe; this covers the routes that take none at all (an
 * action such as a secret rotation, a DELETE), where the pipe never runs, so a body they
 * would ignore is refused before they act. And the /api/v2 collections are cursor-only
 * (API.md §11) although they share DTOs with v1.
 *
 * The last global guard (HttpModule is imported after RateLimitModule): after
 * authentication and the rate limit, before the idempotency interceptor claims a key. A
 * guard rather than an interceptor, which would wrap every request in rxjs.
 */
@Injectable()
export class UndeclaredInputGuard implements CanActivate {
  /** The kinds of the handler's parameters (`@Query()`, `@Body()`, ...), read once. */
  private readonly parameterKindsOf = memoByRoute((handler, controller) => {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ??
      {}) as Record<string, unknown>;
    return new Set(Object.keys(args).map((key) => key.split(':')[0]));
  });

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const names = Object.keys((request.query as Record<string, unknown> | undefined) ?? {});
    if (names.includes('page') && request.url.startsWith('/api/v2/')) {
      throw new Problem(
        'bad_request',
        '/api/v2 collections are cursor-only: use cursor, not page.',
        [{ field: 'page', message: 'is not supported in /api/v2; follow pagination.next' }],
      );
    }
    if (names.length > 0 && !this.declares(context, RouteParamtypes.QUERY)) {
      throw new Problem(
        'bad_request',
        `This operation takes no query parameters; got ${names.join(', ')}.`,
        names.map((field) => ({ field, message: 'is not a known query parameter' })),
      );
    }
    if (
      request.body !== undefined &&
      BODY_METHODS.has(request.method) &&
      !this.declares(context, RouteParamtypes.BODY)
    ) {
      refuseBody(request.body);
    }
    return true;
  }

  /** The handler has a parameter of this kind (`@Query()`, `@Body()`). */
  private declares(context: ExecutionContext, kind: RouteParamtypes): boolean {
    return this.parameterKindsOf(context).has(String(kind));
  }
}

/** A body sent to an operation that takes none: only `{}` passes, as a DTO without fields. */
function refuseBody(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationProblem([
      { field: BODY_FIELD, message: 'must be empty or {}: this operation takes no body' },
    ]);
  }
  const fields = Object.keys(body);
  if (fields.length > 0) {
    throw new ValidationProblem(fields.map((field) => ({ field, message: UNKNOWN_FIELD })));
  }
}
