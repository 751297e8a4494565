import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '../config/app-config';
import { closeRedisClient, createRedisClient, REDIS } from './redis-client';

/** Provides `REDIS`: the shared client when REDIS_URL is set, `null` otherwise. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): Redis | null =>
        config.redisUrl ? createRedisClient(config.redisUrl) : null,
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.redis) await closeRedisClient(this.redis);
  }
}
