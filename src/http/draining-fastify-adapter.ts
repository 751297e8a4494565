import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { serviceUnavailable } from './problems/problem-mapping';

/**
 * Nest's FastifyAdapter, closed requests first: on `app.close()` the server stops taking
 * connections at once, idle keep-alive connections are closed, and requests in flight
 * finish with their real answer before any shutdown hook runs.
 *
 * Nest closes the HTTP server only after the `BeforeApplicationShutdown` hooks, so the
 * webhook worker's drain (seconds) would happen while new requests are still accepted,
 * and API-key usage counted by the last requests would miss the final flush. Nest awaits
 * `beforeClose()` before any hook, so Fastify is closed there; Nest's own `close()`
 * later finds it closed.
 */
export class DrainingFastifyAdapter extends FastifyAdapter {
  // "May return a promise; the core awaits it" (Nest's HttpServer.beforeClose)
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  override async beforeClose(): Promise<void> {
    super.beforeClose();
    await this.close();
  }
}

/**
 * Fastify's close() closes the connections idle at that moment only: one whose request
 * was in flight would then stay open until keepAliveTimeout (72 s) and hold the close up
 * (fastify/fastify#7044). Answers sent while closing say `Connection: close`; those that
 * bypass onSend (the hijacked /oauth ones) have their connection closed once done.
 *
 * A request that arrives on a connection still open meanwhile is refused with the API's
 * `503 service_unavailable` problem, untouched, so it may be sent again as it is (a POST
 * included) to another instance. Fastify's own answer (`return503OnClosing`, turned off in
 * app.factory.ts) was a bare JSON object without the request id or security headers;
 * register this after the security headers' hook so the refusal carries them.
 */
export function registerDrainHooks(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (_request, _reply, done) => {
    done(closing ? serviceUnavailable(SHUTTING_DOWN, SHUTTING_DOWN_RETRY_AFTER_S) : undefined);
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (closing && request.raw.httpVersionMajor < 2) void reply.header('Connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onResponse', (_request, _reply, done) => {
    if (closing) fastify.server.closeIdleConnections();
    done();
  });
}

const SHUTTING_DOWN =
  'This instance is shutting down and did not start on the request; send it again.';
/** Another instance can take the request at once; this one will not come back soon. */
const SHUTTING_DOWN_RETRY_AFTER_S = 1;
