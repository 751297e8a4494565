import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import { REDIS } from '../redis/redis-client';
import { MemoryFixedWindowStore, RedisFixedWindowStore } from './fixed-window.store';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter';

/**
 * API.md §8 with @nestjs/throttler: one throttler, `RATE_LIMIT_PER_HOUR` requests per
 * `RATE_LIMIT_WINDOW_S`, counted in fixed windows in Redis when REDIS_URL is set (one budget
 * across instances) and in memory otherwise. Import it after AuthModule: global guards run
 * in the order their modules are imported, and the budget is keyed by the principal.
 */
@Module({
  imports: [
    // CallerIdentifier, for requests refused before the guards
    AuthModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig, REDIS],
      useFactory: (config: AppConfig, redis: Redis | null) => ({
        throttlers: [
          {
            name: 'default',
            limit: config.rateLimit.limit,
            ttl: config.rateLimit.windowSeconds * 1000,
          },
        ],
        storage: redis ? new RedisFixedWindowStore(redis) : new MemoryFixedWindowStore(),
        setHeaders: false,
      }),
    }),
  ],
  providers: [RateLimiter, { provide: APP_GUARD, useClass: RateLimitGuard }],
  exports: [RateLimiter],
})
export class RateLimitModule {}
