import type { FastifyRequest } from 'fastify';

/**
 * The absolute origin for links a client follows (pagination, problem `type`): PUBLIC_URL
 * when configured (behind a proxy), otherwise what the request itself came in on: its
 * `Host` (checked by request-target.ts), or without one (HTTP/1.0) the local address.
 */
export function baseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host || localAuthority(request)}`;
}

function localAuthority(request: FastifyRequest): string {
  const { localAddress = '127.0.0.1', localPort } = request.raw.socket;
  const address = localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return localPort === undefined ? address : `${address}:${localPort}`;
}
