import { Global, Logger, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Idempotency-Key on every POST (API.md §6), and the hourly purge of expired keys. Global:
 * every module with a POST route binds the interceptor (@IdempotentPost), which needs the
 * repository.
 */
@Global()
@Module({
  providers: [IdempotencyRepository],
  exports: [IdempotencyRepository],
})
export class IdempotencyModule implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Idempotency');
  private timer?: NodeJS.Timeout;

  constructor(private readonly store: IdempotencyRepository) {}

  onModuleInit(): void {
    // Expired records are already ignored when a key is claimed; this only reclaims space.
    this.timer = setInterval(() => {
      this.store
        .purgeExpired()
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'purging expired idempotency keys failed'),
        );
    }, PURGE_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }
}
