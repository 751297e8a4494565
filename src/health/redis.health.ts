import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { REDIS } from '../redis/redis-client';

/**
 * Redis when REDIS_URL is set. Its loss makes an instance `degraded`, not unready: rate
 * limits fall back to per-instance counters and requests keep being served, so a load
 * balancer must not pull every instance at once (docs/api-conventions.md).
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  async check(key: 'redis') {
    const indicator = this.indicators.check(key);
    if (!this.redis) return indicator.up({ configured: false });
    try {
      await this.redis.ping();
      return indicator.up();
    } catch (error) {
      return indicator.degraded({
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
