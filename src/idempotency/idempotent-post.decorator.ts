import { applyDecorators, Post, UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Nest's `@Post()` with the Idempotency-Key handling every POST has (API.md §6): the one
 * way this API declares a POST (ESLint refuses `Post` from @nestjs/common elsewhere). The
 * interceptor is bound here, not globally, so the other methods do not pay for a layer
 * they never use.
 */
export const IdempotentPost = (path?: string): MethodDecorator =>
  applyDecorators(Post(path), UseInterceptors(IdempotencyInterceptor));
