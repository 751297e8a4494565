import type { FastifyRequest } from 'fastify';

/**
 * The absolute origin for links a client follows (pagination, problem `type`): PUBLIC_URL
 * when configured (behind a proxy), otherwise what the request itself came in on.
 */
export function baseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
