import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Redis } from 'ioredis';
import { closeRedisClient, REDIS } from '../../redis/redis-client';
import { API_KEY_CACHE_TTL_MS, ApiKeyVerifier } from './api-key-verifier';

/** The Redis channel revoked keys' hashes are published on. */
export const REVOCATION_CHANNEL = 'api-keys:revoked';

/** How long boot waits for the subscription before serving without it. */
const SUBSCRIBE_WAIT_MS = 2_000;

/**
 * Makes a revocation take effect everywhere (DESIGN.md §5). The revoking instance evicts
 * the key from its own cache before it answers, so the key is refused there at once; with
 * REDIS_URL set it also publishes the key's hash, and every instance (this one included)
 * evicts it when the message arrives, within milliseconds.
 *
 * Without Redis, or while Redis is unreachable, other instances keep a revoked key for at
 * most the cache TTL (API_KEY_CACHE_TTL_MS, 30 s). A subscriber that lost its connection
 * may have missed revocations, so it clears the whole cache when it is back.
 *
 * Only hashes travel: the channel never carries a usable key.
 */
@Injectable()
export class ApiKeyRevocations implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ApiKeyRevocations');
  private subscriber?: Redis;

  constructor(
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly verifier: ApiKeyVerifier,
  ) {}

  /** Evicts the key here, then tells the other instances. Never fails the revocation. */
  async announce(keyHash: string): Promise<void> {
    this.verifier.evictHash(keyHash);
    if (!this.redis) return;
    try {
      await this.redis.publish(REVOCATION_CHANNEL, keyHash);
    } catch (error) {
      this.logger.warn(
        `Could not publish a revocation (${error instanceof Error ? error.message : String(error)}); ` +
          `other instances drop the key within ${API_KEY_CACHE_TTL_MS / 1000} s`,
      );
    }
  }

  /** Subscribes before the app serves, waiting a little for Redis but never failing boot. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.redis) return;
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, keyHash: string) => {
      if (channel === REVOCATION_CHANNEL) this.verifier.evictHash(keyHash);
    });
    let connectedBefore = false;
    const subscribed = new Promise<void>((resolve) => {
      subscriber.on('ready', () => {
        // Reconnected: revocations published meanwhile were lost, forget every key.
        if (connectedBefore) this.verifier.clear();
        connectedBefore = true;
        subscriber.subscribe(REVOCATION_CHANNEL).then(
          () => resolve(),
          (error: unknown) => {
            this.logger.warn(`Could not subscribe to ${REVOCATION_CHANNEL}: ${String(error)}`);
            resolve();
          },
        );
      });
      // Unreachable at boot: serve now, subscribe when Redis is back (the client retries).
      subscriber.once('error', () => resolve());
    });
    subscriber.on('error', () => undefined); // the shared client already logs outages
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      subscribed,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.subscriber) await closeRedisClient(this.subscriber);
  }
}
