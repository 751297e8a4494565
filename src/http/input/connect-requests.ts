import { type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * A `CONNECT` gets the answer any other method the API does not serve gets (API.md §1):
 * `405` with `Allow` on a known path, `404` elsewhere, with a request id, the security
 * and rate-limit headers. Node's HTTP server hands a CONNECT to `connect` listeners as a
 * tunnel and, with none, closes the connection without a word. This server tunnels
 * nothing, so the request is served as an ordinary one. Node's parser has let go of the
 * connection by then: it is closed after the answer.
 */
export function serveConnectRequests(server: Server): void {
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.once('finish', () => {
      response.detachSocket(socket as Socket);
      socket.end();
    });
    server.emit('request', request, response);
  });
}
