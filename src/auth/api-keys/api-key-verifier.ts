import { Injectable } from '@nestjs/common';
import type { Principal } from '../principal';
import { hashApiKey } from './api-key-hash';
import { ApiKeysRepository } from './api-keys.repository';

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Turns an X-API-Key value into a principal. Verified keys (and unknown ones) are cached
 * by hash for a short time, so authentication costs no database round trip on the hot
 * path (DESIGN.md §5); an entry never outlives a key's expiry.
 */
@Injectable()
export class ApiKeyVerifier {
  private readonly cache = new Map<string, { principal: Principal | null; until: number }>();

  constructor(private readonly repository: ApiKeysRepository) {}

  async verify(key: string): Promise<Principal | null> {
    const hash = hashApiKey(key);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > now) return hit.principal;

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
    const until = Math.min(now + TTL_MS, row?.expiresAt?.getTime() ?? Infinity);
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(hash, { principal, until });
    return principal;
  }

  /** Forget a key at once (revocation on this instance). */
  evict(key: string): void {
    this.cache.delete(hashApiKey(key));
  }
}
