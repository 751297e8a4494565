import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';
import { AppConfig } from '../config/app-config';
import { baseUrl } from './base-url';
import { Page } from './pagination/page';

/**
 * Turns a Page returned by a controller into the collection envelope of API.md §4 and
 * the RFC 8288 `Link` header. `next`/`prev` are absolute and keep every other parameter.
 */
@Injectable()
export class PageInterceptor implements NestInterceptor {
  constructor(private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof Page)) return result;
        const reply = context.switchToHttp().getResponse<FastifyReply>();
        const link = (to: Page<unknown>['next']) => (to ? this.urlFor(request, to) : null);
        const nextUrl = link(result.next);
        const prevUrl = link(result.prev);
        const links = [
          nextUrl && `<${nextUrl}>; rel="next"`,
          prevUrl && `<${prevUrl}>; rel="prev"`,
        ].filter(Boolean);
        if (links.length > 0) void reply.header('Link', links.join(', '));
        return {
          data: result.items,
          pagination: {
            total: result.total,
            limit: result.limit,
            ...(result.page !== undefined ? { page: result.page } : {}),
            next: nextUrl,
            prev: prevUrl,
          },
        };
      }),
    );
  }

  private urlFor(request: FastifyRequest, to: { cursor: string } | { page: number }): string {
    const [path, query = ''] = request.url.split('?');
    const params = new URLSearchParams(query);
    params.delete('cursor');
    params.delete('page');
    if ('cursor' in to) params.set('cursor', to.cursor);
    else params.set('page', String(to.page));
    return `${baseUrl(request, this.config.publicUrl)}${path}?${params.toString()}`;
  }
}
