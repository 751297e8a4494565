import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { Problem } from './problem';

/**
 * Query-string rules no single DTO can state. Unknown query parameters are 400 on every
 * route (API.md §3): routes with a query DTO have that enforced by the validation pipe;
 * this covers the routes that take no query at all, where the pipe never runs. And the
 * /api/v2 collections are cursor-only (API.md §11) although they share DTOs with v1.
 */
@Injectable()
export class QueryGuardInterceptor implements NestInterceptor {
  private readonly takesQuery = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const names = Object.keys((request.query as Record<string, unknown> | undefined) ?? {});
    if (names.includes('page') && request.url.startsWith('/api/v2/')) {
      throw new Problem(
        'bad_request',
        '/api/v2 collections are cursor-only: use cursor, not page.',
        [{ field: 'page', message: 'is not supported in /api/v2; follow pagination.next' }],
      );
    }
    if (names.length > 0 && !this.declaresQuery(context)) {
      throw new Problem(
        'bad_request',
        `This operation takes no query parameters; got ${names.join(', ')}.`,
        names.map((field) => ({ field, message: 'is not a known query parameter' })),
      );
    }
    return next.handle();
  }

  private declaresQuery(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let known = this.takesQuery.get(handler);
    if (known === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ??
        {}) as Record<string, unknown>;
      known = Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.QUERY}:`));
      this.takesQuery.set(handler, known);
    }
    return known;
  }
}
