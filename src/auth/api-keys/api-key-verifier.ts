import { Injectable } from '@nestjs/common';
import type { Principal } from '../principal';
import { hashApiKey } from './api-key-hash';
import { ApiKeysRepository } from './api-keys.repository';

/**
 * How long a verified key is trusted without asking the database again. It bounds how
 * long a revoked key keeps working on an instance that missed the revocation (no Redis,
 * or Redis unreachable when it was announced).
 */
export const API_KEY_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Turns an X-API-Key value into a principal. Verified keys (and unknown ones) are cached
 * by hash for a short time, so authentication costs no database round trip on the hot
 * path (DESIGN.md §5); an entry never outlives a key's expiry, and a revocation evicts it
 * (ApiKeyRevocations: at once on the revoking instance, through Redis on the others).
 */
@Injectable()
export class ApiKeyVerifier {
  private readonly cache = new Map<string, { principal: Principal | null; until: number }>();
  /**
   * Grows with every eviction. A lookup that started before an eviction does not cache
   * its answer: it may have read the row just before the revocation committed.
   */
  private evictions = 0;

  constructor(private readonly repository: ApiKeysRepository) {}

  async verify(key: string): Promise<Principal | null> {
    const hash = hashApiKey(key);
    const now = Date.now();
    const hit = this.cached(hash, now);
    if (hit !== undefined) return hit;

    const evictionsBefore = this.evictions;
    const row = await this.repository.findUsableByHash(hash);
    const principal: Principal | null = row
      ? {
          subject: `api_key:${row.id}`,
          kind: 'api_key',
          role: row.role,
          apiKeyId: row.id,
          ...(row.customerId ? { customerId: row.customerId } : {}),
        }
      : null;
    if (this.evictions !== evictionsBefore) return principal;
    const until = Math.min(now + API_KEY_CACHE_TTL_MS, row?.expiresAt?.getTime() ?? Infinity);
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(hash, { principal, until });
    return principal;
  }

  /**
   * What `verify` answers for a key it verified lately, without waiting: its principal,
   * or null for a key that was unknown, revoked or expired; undefined when it must ask
   * the database (call `verify`).
   */
  verifyCached(key: string): Principal | null | undefined {
    return this.cached(hashApiKey(key), Date.now());
  }

  private cached(hash: string, now: number): Principal | null | undefined {
    const hit = this.cache.get(hash);
    return hit && hit.until > now ? hit.principal : undefined;
  }

  /** Forget a key at once (revocation on this instance). */
  evict(key: string): void {
    this.evictHash(hashApiKey(key));
  }

  /** Forget the key with this SHA-256 hash (hex), as revocations announce it. */
  evictHash(keyHash: string): void {
    this.evictions += 1;
    this.cache.delete(keyHash);
  }

  /** Forget every key: after revocations may have been missed (Redis was away). */
  clear(): void {
    this.evictions += 1;
    this.cache.clear();
  }
}
