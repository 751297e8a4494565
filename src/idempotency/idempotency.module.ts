import { Global, Logger, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { repeatInBackground } from '../common/repeat-in-background';
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
  private stop?: () => void;

  constructor(private readonly store: IdempotencyRepository) {}

  onModuleInit(): void {
    // Expired records are already ignored when a key is claimed; this only reclaims space.
    this.stop = repeatInBackground(
      PURGE_EVERY_MS,
      'purging expired idempotency keys',
      this.logger,
      () => this.store.purgeExpired(),
    );
  }

  onModuleDestroy(): void {
    this.stop?.();
  }
}
