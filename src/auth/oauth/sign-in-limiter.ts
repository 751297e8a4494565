import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, normalizeIp, type ThrottlerStorage } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { signInEmail } from '../users/user-email';

/**
 * Against password guessing at the sign-in form: attempts are counted per email and per
 * client IP (an IPv6 /64, as the API's budgets), each in a fixed window of its own. The
 * counters are the API's rate-limit store (Redis, shared by every instance; this
 * instance's memory without it), under `sign-in:` keys that no API budget uses.
 */
@Injectable()
export class SignInLimiter {
  constructor(
    private readonly config: AppConfig,
    @InjectThrottlerStorage() private readonly store: ThrottlerStorage,
  ) {}

  /** Counts one attempt; the seconds until it may be tried again when either limit is past. */
  async attempt(email: string, ip: string): Promise<number | null> {
    const { perEmail, perIp, windowSeconds } = this.config.signInLimit;
    const windowMs = windowSeconds * 1000;
    const count = (key: string, limit: number) =>
      this.store.increment(`sign-in:${key}`, windowMs, limit, windowMs, 'sign-in');
    // Hashed: Redis holds no email addresses, and every key has the same length.
    const emailKey = createHash('sha256').update(signInEmail(email)).digest('base64url');
    const counts = await Promise.all([
      count(`email:${emailKey}`, perEmail),
      count(`ip:${normalizeIp(ip)}`, perIp),
    ]);
    const waits = counts.filter((c) => c.isBlocked).map((c) => c.timeToExpire);
    return waits.length > 0 ? Math.max(...waits) : null;
  }
}
