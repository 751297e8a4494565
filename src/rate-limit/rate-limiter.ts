import { Injectable, Logger } from '@nestjs/common';
import { InjectThrottlerStorage, normalizeIp } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { CallerIdentifier } from '../auth/caller-identifier';
import { AppConfig } from '../config/app-config';
import type { FixedWindowStore, ThrottlerStorageRecord } from './fixed-window.store';
import type { RateLimitState } from './rate-limit-state';

/**
 * Counts requests against their caller's budget: one budget per API key or token subject
 * (the authenticated principal), or per client IP (an IPv6 /64) when there is none, shared
 * by every route. Both the guard and the response hook count through here, so a request
 * costs the same wherever it was counted.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimit');
  readonly limit: number;
  readonly windowSeconds: number;

  constructor(
    config: AppConfig,
    // the store RateLimitModule gives the throttler: always one of ours
    @InjectThrottlerStorage() private readonly storage: FixedWindowStore,
    private readonly callers: CallerIdentifier,
  ) {
    this.limit = config.rateLimit.limit;
    this.windowSeconds = config.rateLimit.windowSeconds;
  }

  static trackerFor(request: FastifyRequest): string {
    return request.user ? `principal:${request.user.subject}` : `ip:${normalizeIp(request.ip)}`;
  }

  /** Counts `request` (once) and records the outcome on it for the response headers. */
  async count(
    request: FastifyRequest,
    limit = this.limit,
    windowMs = this.windowSeconds * 1000,
    name = 'default',
  ): Promise<RateLimitState> {
    if (request.rateLimit) return request.rateLimit;
    const key = RateLimiter.keyOf(request, name, windowMs);
    return this.recorded(
      request,
      limit,
      windowMs,
      await this.storage.increment(key, windowMs, limit),
    );
  }

  /**
   * `count` without waiting, when the store can count at once (see
   * FixedWindowStore.hitNow); undefined, with nothing counted, when it cannot.
   */
  countNow(
    request: FastifyRequest,
    limit = this.limit,
    windowMs = this.windowSeconds * 1000,
    name = 'default',
  ): RateLimitState | undefined {
    if (request.rateLimit) return request.rateLimit;
    const key = RateLimiter.keyOf(request, name, windowMs);
    const record = this.storage.incrementNow(key, windowMs, limit);
    return record && this.recorded(request, limit, windowMs, record);
  }

  /**
   * The counter of a caller's window. Its length is part of the name: instances that
   * disagree on it (a rolling change of RATE_LIMIT_WINDOW_S) count apart, so a window
   * never outlasts the `w` its answers announce.
   */
  private static keyOf(request: FastifyRequest, name: string, windowMs: number): string {
    return `${name}:${windowMs}:${RateLimiter.trackerFor(request)}`;
  }

  private recorded(
    request: FastifyRequest,
    limit: number,
    windowMs: number,
    record: ThrottlerStorageRecord,
  ): RateLimitState {
    const state: RateLimitState = {
      limit,
      windowSeconds: Math.round(windowMs / 1000),
      remaining: Math.max(0, limit - record.totalHits),
      resetSeconds: record.timeToExpire,
      exceeded: record.isBlocked,
    };
    request.rateLimit = state;
    return state;
  }

  /**
   * Counts a request refused before any handler (rate-limit.hooks.ts, and the URLs the
   * router refuses, framework-errors.ts) against its caller's budget: the principal of
   * its credentials when they verify, its IP otherwise. Undefined when it could not be
   * counted: counting must never cost the caller its answer, so the failure is logged and
   * the answer goes out without the headers.
   */
  async countRefused(request: FastifyRequest): Promise<RateLimitState | undefined> {
    try {
      // the request log names the caller too
      request.user ??= await this.callers.identify(request);
      return await this.count(request);
    } catch (error) {
      this.logger.error({ err: error, requestId: request.id }, 'Could not count a request');
      return undefined;
    }
  }
}
