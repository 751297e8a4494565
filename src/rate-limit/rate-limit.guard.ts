import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerException,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { isRateLimitedPath } from './rate-limit-state';
import { RateLimiter } from './rate-limiter';

/**
 * The throttler's guard, ordered after the AuthenticationGuard (see AppModule) so that
 * `request.user` keys the budget. Over the budget it throws the throttler's exception,
 * which the problem mapping answers as 429 `rate_limited`; the headers of every answer,
 * this one included, are written by the onSend hook (rate-limit.hooks.ts).
 *
 * The throttler's options (`@Throttle`, `@SkipThrottle`, the named throttlers) keep
 * working; only the counting goes through RateLimiter, for its caller-wide key and the
 * state the headers are built from.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const allowed = await super.canActivate(context);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // A route that skipped every throttler opted out: the response hook must not count it.
    if (request.rateLimit === undefined && isRateLimitedPath(request.url)) {
      request.rateLimit = null;
    }
    return allowed;
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return Promise.resolve(!isRateLimitedPath(request.url));
  }

  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
  }: ThrottlerRequest): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const state = await this.limiter.count(request, limit, ttl, throttler.name);
    if (state.exceeded) throw new ThrottlerException();
    return true;
  }
}
