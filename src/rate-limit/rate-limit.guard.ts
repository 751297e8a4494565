import { ExecutionContext, Injectable, type Type } from '@nestjs/common';
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
// the metadata keys @Throttle and @SkipThrottle write (the package index does not export them)
import {
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants';
import type { FastifyRequest } from 'fastify';
import { memoByRoute, type RouteHandler } from '../http/routing/route-memo';
import { isRateLimitedPath } from './rate-limit-state';
import { RateLimiter } from './rate-limiter';

/** The one budget a route counts against, when nothing about it is decided per request. */
interface FixedBudget {
  name: string;
  limit: number;
  ttl: number;
}

/**
 * The throttler's guard, ordered after the AuthenticationGuard (see AppModule) so that
 * `request.user` keys the budget. Over the budget it throws the throttler's exception,
 * which the problem mapping answers as 429 `rate_limited`; the headers of every answer,
 * this one included, are written by the onSend hook (rate-limit.hooks.ts).
 *
 * The throttler's options (`@Throttle`, `@SkipThrottle`, the named throttlers) keep
 * working; only the counting goes through RateLimiter, for its caller-wide key and the
 * state the headers are built from. A route with one throttler and none of those
 * decorators (every route of this API) is counted without the throttler's general path:
 * its budget is read once per route, and the count is taken without waiting when the
 * store can (a block of hits Redis granted, or memory). The general path's chain of
 * `await`s was about a tenth of the CPU of a GET by id (docs/performance.md).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** The route's fixed budget, or null for the general path. */
  private readonly fixedBudgetOf = memoByRoute((handler, controller) =>
    this.readFixedBudget(handler, controller),
  );

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {
    super(options, storage, reflector);
  }

  override canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const budget = isRateLimitedPath(request.url) ? this.fixedBudgetOf(context) : null;
    const state = budget && this.limiter.countNow(request, budget.limit, budget.ttl, budget.name);
    if (!state) return this.countEachThrottler(context);
    if (state.exceeded) throw new ThrottlerException();
    return Promise.resolve(true);
  }

  /** The throttler's general path: every named throttler, options resolved per request. */
  private async countEachThrottler(context: ExecutionContext): Promise<boolean> {
    const allowed = await super.canActivate(context);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // A route that skipped every throttler opted out: the response hook must not count it.
    if (request.rateLimit === undefined && isRateLimitedPath(request.url)) {
      request.rateLimit = null;
    }
    return allowed;
  }

  private readFixedBudget(handler: RouteHandler, controller: Type): FixedBudget | null {
    if (this.throttlers.length !== 1 || this.commonOptions.skipIf) return null;
    const [{ name = 'default', limit, ttl, skipIf }] = this.throttlers;
    if (skipIf || typeof limit !== 'number' || typeof ttl !== 'number') return null;
    const declared = [THROTTLER_SKIP, THROTTLER_LIMIT, THROTTLER_TTL].some(
      (key) =>
        this.reflector.getAllAndOverride<unknown>(key + name, [handler, controller]) !== undefined,
    );
    return declared ? null : { name, limit, ttl };
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
