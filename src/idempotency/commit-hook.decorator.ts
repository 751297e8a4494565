import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CommitHook as Hook } from '../database/transaction';

/** What a handler hands its service to run inside the use case's transaction. */
export type CommitHook = Hook;

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the idempotency interceptor when the request carries an Idempotency-Key */
    commitHook?: Hook;
  }
}

/**
 * For POST handlers whose use case writes in a transaction: what must commit with it (the
 * idempotency key's claim first, its answer last), or undefined when the request carries
 * no Idempotency-Key. The handler passes it to its service, and the service to
 * `inTransaction`, once. A POST handler that drops it still answers, but nothing would
 * stop a retry sent while it runs from running it a second time.
 */
export const CommitHook = createParamDecorator(
  (_: unknown, context: ExecutionContext): Hook | undefined =>
    context.switchToHttp().getRequest<FastifyRequest>().commitHook,
);
