import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { SkipThrottle, Throttle, ThrottlerException } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import type { CallerIdentifier } from '../auth/caller-identifier';
import type { AppConfig } from '../config/app-config';
import { MemoryFixedWindowStore } from './fixed-window.store';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter';

class PlainController {
  list(this: void): void {}
}

@SkipThrottle()
class SkippedController {
  list(this: void): void {}
}

class OwnLimitController {
  @Throttle({ default: { limit: 1, ttl: 60_000 } })
  list(this: void): void {}
}

async function guardWithBudget(limit: number): Promise<RateLimitGuard> {
  const store = new MemoryFixedWindowStore();
  const config = { rateLimit: { limit, windowSeconds: 60 } } as AppConfig;
  const limiter = new RateLimiter(config, store, {} as CallerIdentifier);
  const guard = new RateLimitGuard(
    { throttlers: [{ name: 'default', limit, ttl: 60_000 }] },
    store,
    new Reflector(),
    limiter,
  );
  await guard.onModuleInit();
  return guard;
}

const caller = () =>
  ({ url: '/api/v1/things', ip: '192.0.2.1', user: { subject: 'api_key:k' } }) as FastifyRequest;

function contextOf(request: FastifyRequest, controller: { prototype: { list(this: void): void } }) {
  return new ExecutionContextHost(
    [request, {}, undefined],
    controller as never,
    controller.prototype.list,
  );
}

describe('RateLimitGuard', () => {
  it('counts a route with the one default budget at once: its state is set before anything is awaited', async () => {
    const guard = await guardWithBudget(3);
    const request = caller();

    const pending = guard.canActivate(contextOf(request, PlainController));

    expect(request.rateLimit).toMatchObject({ limit: 3, remaining: 2, exceeded: false });
    await expect(pending).resolves.toBe(true);
  });

  it('refuses a request past the budget with the throttler exception, at once', async () => {
    const guard = await guardWithBudget(2);
    for (let i = 0; i < 2; i++) await guard.canActivate(contextOf(caller(), PlainController));
    const request = caller();

    expect(() => guard.canActivate(contextOf(request, PlainController))).toThrow(
      ThrottlerException,
    );
    expect(request.rateLimit).toMatchObject({ remaining: 0, exceeded: true });
  });

  it('leaves a @SkipThrottle route uncounted and marked as opted out', async () => {
    const guard = await guardWithBudget(3);
    const skipped = caller();

    await expect(guard.canActivate(contextOf(skipped, SkippedController))).resolves.toBe(true);
    const next = caller();
    await guard.canActivate(contextOf(next, PlainController));

    expect(skipped.rateLimit).toBeNull();
    expect(next.rateLimit).toMatchObject({ remaining: 2 });
  });

  it("counts a route with its own @Throttle limit through the throttler's general path", async () => {
    const guard = await guardWithBudget(3);
    const first = caller();

    const pending = guard.canActivate(contextOf(first, OwnLimitController));
    const countedAtOnce = first.rateLimit;
    await expect(pending).resolves.toBe(true);

    expect(countedAtOnce).toBeUndefined();
    expect(first.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
    await expect(guard.canActivate(contextOf(caller(), OwnLimitController))).rejects.toThrow(
      ThrottlerException,
    );
  });
});
