import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { GRANT_SHARE, TokenLeases } from './token-leases';

/** What the throttler's storage answers for a counted request. */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * What one counted request leaves in a window: the hits so far (this one included) and the
 * milliseconds until the window resets.
 */
export interface WindowCount {
  hits: number;
  resetInMs: number;
}

/**
 * Fixed windows (API.md §8): a key's window opens with its first request and lasts `ttl` ms;
 * every request in it adds one, and the count starts again at zero when it ends. Not the
 * throttler's own in-memory storage, which expires each hit separately (a sliding window).
 *
 * Implements the throttler's ThrottlerStorage so the guard can use it as its storage.
 */
export abstract class FixedWindowStore implements ThrottlerStorage {
  abstract hit(key: string, ttlMs: number, limit: number): Promise<WindowCount>;

  /**
   * The same count when the store can make it without waiting (memory, or a hit Redis
   * already granted); undefined when it cannot, and then nothing was counted: call `hit`.
   * The hot path takes this first, as every `await` on a request's way costs CPU.
   */
  abstract hitNow(key: string, ttlMs: number, limit: number): WindowCount | undefined;

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return recordOf(await this.hit(key, ttl, limit), limit);
  }

  /** `increment` without waiting, or undefined (nothing counted) when it would have to. */
  incrementNow(key: string, ttl: number, limit: number): ThrottlerStorageRecord | undefined {
    const window = this.hitNow(key, ttl, limit);
    return window && recordOf(window, limit);
  }
}

function recordOf({ hits, resetInMs }: WindowCount, limit: number): ThrottlerStorageRecord {
  const timeToExpire = Math.max(1, Math.ceil(resetInMs / 1000));
  const isBlocked = hits > limit;
  return {
    totalHits: hits,
    timeToExpire,
    isBlocked,
    timeToBlockExpire: isBlocked ? timeToExpire : 0,
  };
}

/** Counters of this process only: used without REDIS_URL, and while Redis is unreachable. */
export class MemoryFixedWindowStore extends FixedWindowStore {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  private nextSweepAt = 0;

  hit(key: string, ttlMs: number): Promise<WindowCount> {
    return Promise.resolve(this.hitNow(key, ttlMs));
  }

  hitNow(key: string, ttlMs: number): WindowCount {
    const now = Date.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { hits: 0, resetAt: now + ttlMs };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return { hits: window.hits, resetInMs: window.resetAt - now };
  }

  /** Drops ended windows at most once a minute, so idle callers do not pile up. */
  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + 60_000;
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key);
    }
  }
}

/**
 * Counts `ARGV[3]` hits at once (fewer when little of the budget `ARGV[2]` remains: at most
 * a GRANT_SHARE-th of it, and at least one) and, for the first hit of a window, sets its
 * length `ARGV[1]`, in one atomic step; returns the count, the window's remaining
 * milliseconds and the hits counted. A key left without a TTL gets one, so a window can
 * never last forever.
 */
const GRANT_SCRIPT = `
local room = tonumber(ARGV[2]) - tonumber(redis.call('GET', KEYS[1]) or '0')
local size = math.min(tonumber(ARGV[3]), math.floor(room / ${GRANT_SHARE}))
if size < 1 then size = 1 end
local hits = redis.call('INCRBY', KEYS[1], size)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl, size}
`;

type RedisWithGrant = Redis & {
  rateLimitGrant(
    key: string,
    ttlMs: number,
    limit: number,
    size: number,
  ): Promise<[number, number, number]>;
};

/** After Redis failed to answer, how long counting stays in memory before Redis is tried. */
const RETRY_REDIS_AFTER_MS = 5_000;

/**
 * Counters in Redis, shared by every instance (API.md §8). A busy key is not counted one
 * request at a time: this instance asks Redis for a block of hits sized to about a tenth of
 * a second of the key's traffic here, and its requests take their hit numbers from the
 * block without a round trip (TokenLeases). Near the end of a budget the blocks shrink to
 * one hit, so the limit holds exactly however many instances share it.
 *
 * When Redis cannot answer, the request is counted in this instance's memory instead and
 * served: a Redis outage weakens the limit to one budget per instance, it never turns into
 * errors.
 *
 * A Redis that stops answering without closing the connection (a partition, a frozen
 * host) fails each command only at the client's command time-out (half a second,
 * redis-client.ts), which every request would wait out. So after a failure, requests skip
 * Redis for `retryAfterMs`; then a `PING`, which no request waits for, tries it, and
 * counting returns to Redis once one is answered. Written here rather than with a circuit
 * breaker library (opossum): the fallback and the probe are this store's own, and a
 * breaker's per-call statistics and events would sit on every request's path.
 */
export class RedisFixedWindowStore extends FixedWindowStore {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: RedisWithGrant;
  private readonly fallback = new MemoryFixedWindowStore();
  private readonly leases = new TokenLeases();
  /** The grant each key is waiting for: one at a time, the requests meanwhile share it. */
  private readonly granting = new Map<string, Promise<unknown>>();
  private degraded = false;
  /** While set, Redis failed: skip it until this time, then probe it. */
  private skipRedisUntil = 0;
  private probing = false;

  constructor(
    redis: Redis,
    private readonly keyPrefix = 'rate-limit:',
    private readonly retryAfterMs = RETRY_REDIS_AFTER_MS,
  ) {
    super();
    redis.defineCommand('rateLimitGrant', { numberOfKeys: 1, lua: GRANT_SCRIPT });
    this.redis = redis as RedisWithGrant;
  }

  hitNow(key: string, ttlMs: number, limit: number): WindowCount | undefined {
    if (this.redis.status !== 'ready' || this.skipRedisUntil !== 0) return undefined;
    return this.leases.take(key, limit, Date.now());
  }

  hit(key: string, ttlMs: number, limit: number): Promise<WindowCount> {
    // Not connected: no point waiting for a command that cannot be sent.
    if (this.redis.status !== 'ready') return this.fallBack(key, ttlMs, 'not connected');
    if (this.skipRedisUntil !== 0) {
      if (Date.now() >= this.skipRedisUntil) this.probe();
      return this.fallback.hit(key, ttlMs);
    }
    const leased = this.leases.take(key, limit, Date.now());
    if (leased) return Promise.resolve(leased);
    const pending = this.granting.get(key);
    if (pending) return pending.then(() => this.hit(key, ttlMs, limit));
    const grant = this.grant(key, ttlMs, limit);
    this.granting.set(key, grant);
    return grant.finally(() => this.granting.delete(key));
  }

  /** Asks Redis for the next block of `key`'s hits; never rejects (falls back instead). */
  private async grant(key: string, ttlMs: number, limit: number): Promise<WindowCount> {
    const size = this.leases.sizeOfNextGrant(key, Date.now());
    try {
      const [last, resetInMs, granted] = await this.redis.rateLimitGrant(
        this.keyPrefix + key,
        ttlMs,
        limit,
        size,
      );
      this.recovered();
      const grant = { last: Number(last), size: Number(granted), resetInMs: Number(resetInMs) };
      return this.leases.granted(key, grant, Date.now());
    } catch (error) {
      this.skipRedisUntil = Date.now() + this.retryAfterMs;
      return this.fallBack(key, ttlMs, error instanceof Error ? error.message : String(error));
    }
  }

  /** One PING at a time; answered, counting returns to Redis, else it waits again. */
  private probe(): void {
    if (this.probing) return;
    this.probing = true;
    this.redis.ping().then(
      () => {
        this.probing = false;
        this.skipRedisUntil = 0;
        this.recovered();
      },
      () => {
        this.probing = false;
        this.skipRedisUntil = Date.now() + this.retryAfterMs;
      },
    );
  }

  private fallBack(key: string, ttlMs: number, reason: string): Promise<WindowCount> {
    if (!this.degraded) {
      this.degraded = true;
      this.logger.warn(
        `Redis is unavailable (${reason}): rate limits are counted per instance until it is back`,
      );
    }
    return this.fallback.hit(key, ttlMs);
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.log('Rate limits are counted in Redis again');
  }
}
