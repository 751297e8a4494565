import type { WindowCount } from './fixed-window.store';

/**
 * How long one grant should last at the rate its key was last used on this instance: a
 * busy key asks Redis about ten times a second, whatever its rate.
 */
const GRANT_TARGET_MS = 100;
/** A grant is at most this many times the one before, so a burst cannot overshoot. */
const GROWTH = 8;
/** The most hits one grant hands out. */
export const MAX_GRANT = 1_000;
/**
 * A grant takes at most this share of what remains of the budget (enforced by Redis, in
 * the grant script): the last hits of a budget go out one at a time, so instances never
 * hold back more than a sixteenth of what remained when they asked.
 */
export const GRANT_SHARE = 16;
/** How often ended windows are dropped, so idle callers do not pile up. */
const SWEEP_EVERY_MS = 60_000;

/** What Redis granted: hits numbered `last - size + 1` to `last`, the window's time left. */
export interface Grant {
  last: number;
  size: number;
  resetInMs: number;
}

interface Lease {
  /** the hit number the next request of this key gets */
  next: number;
  /** the last hit number granted */
  last: number;
  /** when the window ends (this process's clock) */
  resetAt: number;
  /** the size of the latest grant and when it came, to size the next one by */
  size: number;
  grantedAt: number;
}

/**
 * Hits of a key's fixed window that Redis has counted ahead of the requests that will use
 * them (RedisFixedWindowStore): a busy key is counted in Redis a block at a time and its
 * requests take their hit numbers here, with no round trip. The numbers are the ones Redis
 * gave out, in order, so on one instance every request sees exactly what it would have
 * seen counted one by one; the budget is never exceeded on any number of instances, as
 * every hit number is handed out once.
 *
 * Hand-written: rate-limit libraries count every request in the shared store, and that
 * round trip is what this saves (docs/performance.md).
 */
export class TokenLeases {
  private readonly leases = new Map<string, Lease>();
  private nextSweepAt = 0;

  /** The next hit of `key`'s window if one was granted and is left; undefined otherwise. */
  take(key: string, limit: number, now: number): WindowCount | undefined {
    const lease = this.leases.get(key);
    if (!lease || lease.resetAt <= now) return undefined;
    if (lease.next <= lease.last) {
      return { hits: lease.next++, resetInMs: lease.resetAt - now };
    }
    // Past the budget for the rest of this window, whatever other instances do: nothing
    // to ask Redis, the request is refused either way.
    if (lease.last >= limit) return { hits: lease.last + 1, resetInMs: lease.resetAt - now };
    return undefined;
  }

  /** How many hits to ask for: about GRANT_TARGET_MS of the key's recent traffic here. */
  sizeOfNextGrant(key: string, now: number): number {
    const lease = this.leases.get(key);
    if (!lease) return 1;
    const used = lease.next - (lease.last - lease.size + 1);
    const elapsed = Math.max(1, now - lease.grantedAt);
    const wanted = Math.ceil((used * GRANT_TARGET_MS) / elapsed);
    return Math.max(1, Math.min(wanted, lease.size * GROWTH, MAX_GRANT));
  }

  /** Records a grant and takes its first hit for the request that asked for it. */
  granted(key: string, grant: Grant, now: number): WindowCount {
    this.sweep(now);
    this.leases.set(key, {
      next: grant.last - grant.size + 2,
      last: grant.last,
      resetAt: now + grant.resetInMs,
      size: grant.size,
      grantedAt: now,
    });
    return { hits: grant.last - grant.size + 1, resetInMs: grant.resetInMs };
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_EVERY_MS;
    for (const [key, lease] of this.leases) {
      if (lease.resetAt <= now) this.leases.delete(key);
    }
  }
}
