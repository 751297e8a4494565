import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { BeforeCommit } from '../database/transaction';

export type { BeforeCommit };

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the idempotency interceptor while the request holds its key's claim */
    commitHook?: BeforeCommit;
  }
}

/**
 * For POST handlers whose use case writes in a transaction: what must commit with it (the
 * idempotency key's `committed` marker), or undefined when the request carries no
 * Idempotency-Key. The handler passes it to its service, and the service to
 * `inTransaction`. A POST handler that drops it still works, but a process dying between
 * its commit and the stored answer would let a retry run it again.
 */
export const CommitHook = createParamDecorator(
  (_: unknown, context: ExecutionContext): BeforeCommit | undefined =>
    context.switchToHttp().getRequest<FastifyRequest>().commitHook,
);
