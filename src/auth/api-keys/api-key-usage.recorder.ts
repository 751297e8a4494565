import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ApiKeyUsageRepository, UsageCount } from './api-key-usage.repository';

export const HOUR_MS = 3_600_000;
/** How often the counts of this instance are written. */
export const USAGE_FLUSH_EVERY_MS = 5_000;
/** Pending (key, hour) pairs beyond which a flush starts early. */
const FLUSH_AT_PAIRS = 5_000;

/**
 * Counts each API key's requests per hour in memory (API.md §8) and writes them in
 * batches: the hot path costs a Map increment, never a database round trip (DESIGN.md
 * §5). Every few seconds, and once more when the app shuts down, the pending counts go
 * to the database in one upsert that adds to what other instances wrote.
 *
 * A failed flush puts its counts back, to be written with the next one; what a process
 * that dies without shutting down had not flushed (a few seconds' worth) is lost.
 */
@Injectable()
export class ApiKeyUsageRecorder implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('ApiKeyUsage');
  /** `${apiKeyId} ${hour start ms}` → requests not yet written */
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly usage: ApiKeyUsageRepository) {}

  /** One request of `apiKeyId`, counted in the hour of `at`. */
  record(apiKeyId: string, at: number = Date.now()): void {
    const key = `${apiKeyId} ${Math.floor(at / HOUR_MS) * HOUR_MS}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    if (this.pending.size >= FLUSH_AT_PAIRS) void this.flush();
  }

  /**
   * Writes every pending count. Flushes never overlap: a call made while one runs waits
   * for it and then writes what arrived since, so after `await flush()` every request
   * recorded before the call is in the database (tests rely on this).
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), USAGE_FLUSH_EVERY_MS);
    this.timer.unref();
  }

  /** Before the database closes: stop the timer and write what is left. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const counts: UsageCount[] = [...batch].map(([key, requests]) => {
      const [apiKeyId, hour] = key.split(' ');
      return { apiKeyId, hour: new Date(Number(hour)), requests };
    });
    try {
      await this.usage.add(counts);
    } catch (error) {
      for (const [key, requests] of batch) {
        this.pending.set(key, (this.pending.get(key) ?? 0) + requests);
      }
      this.logger.warn(
        { err: error },
        `Could not write API key usage (${counts.length} key-hours); retrying with the next flush`,
      );
    }
  }
}
