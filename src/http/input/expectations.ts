import type { Server } from 'node:http';

/**
 * A request whose `Expect` names anything but `100-continue` is served as if it had none.
 * Node's HTTP server would answer it a bare `417` with no problem body, request id or
 * security headers (API.md §1, §7); RFC 9110 §10.1.1 lets a server ignore an expectation
 * it does not know ("MAY respond with 417"), and no error code of the contract is a 417.
 * `100-continue` stays Node's: it answers `100 Continue` before the body is read.
 */
export function serveUnknownExpectations(server: Server): void {
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
}
