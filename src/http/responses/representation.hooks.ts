import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { baseUrl } from './base-url';
import { versionEtagOf } from './etag';
import { Page } from '../pagination/page';

/**
 * What a handler returns becomes its representation on the way out:
 * - a `Page` becomes the collection envelope of API.md §4, `{data, pagination}`, with the
 *   RFC 8288 `Link` header; `next`/`prev` are absolute and keep every other parameter;
 * - an answer that carries an integer `version` (a single resource, read or written) gets
 *   `ETag: "<version>"` (API.md §5).
 *
 * A Fastify `preSerialization` hook, which sees the object a handler returned, rather than
 * Nest interceptors: every global interceptor is a layer of rxjs and async scopes around
 * every request, and four of them were about a fifth of the CPU of a GET by id
 * (docs/performance.md). Strings, buffers and streams (documents, the docs UI) do not pass
 * here.
 */
export function registerRepresentationHooks(fastify: FastifyInstance, config: AppConfig): void {
  fastify.addHook('preSerialization', (request, reply, payload, done) => {
    if (payload instanceof Page) return done(null, envelope(request, reply, payload, config));
    const etag = versionEtagOf(payload);
    if (etag !== undefined) void reply.header('ETag', etag);
    done(null, payload);
  });
}

function envelope(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page<unknown>,
  config: AppConfig,
): unknown {
  const link = (to: Page<unknown>['next']) => (to ? urlFor(request, to, config) : null);
  const nextUrl = link(page.next);
  const prevUrl = link(page.prev);
  const links = [nextUrl && `<${nextUrl}>; rel="next"`, prevUrl && `<${prevUrl}>; rel="prev"`];
  if (nextUrl || prevUrl) void reply.header('Link', links.filter(Boolean).join(', '));
  return {
    data: page.items,
    pagination: {
      total: page.total,
      limit: page.limit,
      ...(page.page !== undefined ? { page: page.page } : {}),
      next: nextUrl,
      prev: prevUrl,
    },
  };
}

function urlFor(
  request: FastifyRequest,
  to: { cursor: string } | { page: number },
  config: AppConfig,
): string {
  const [path, query = ''] = request.url.split('?');
  const params = new URLSearchParams(query);
  params.delete('cursor');
  params.delete('page');
  if ('cursor' in to) params.set('cursor', to.cursor);
  else params.set('page', String(to.page));
  return `${baseUrl(request, config.publicUrl)}${path}?${params.toString()}`;
}
