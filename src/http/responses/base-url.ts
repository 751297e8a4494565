import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';

/**
 * The absolute origin for links a client follows (pagination, problem `type`): PUBLIC_URL
 * when configured (behind a proxy), otherwise what the request itself came in on: its
 * `Host` (checked by request-target.ts), or without one (HTTP/1.0) the local address.
 */
export function baseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host || localAuthority(request.raw.socket)}`;
}

/** The address a client connected to, as a URL's authority (an IPv6 one in brackets). */
export function localAuthority(socket: Socket): string {
  const address = socket.localAddress ?? 'localhost';
  const host = address.includes(':') ? `[${address}]` : address;
  return socket.localPort === undefined ? host : `${host}:${socket.localPort}`;
}
