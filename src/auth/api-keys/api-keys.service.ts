import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { CommitHook, inTransaction } from '../../database/transaction';
import {
  FieldError,
  NotFoundProblem,
  Problem,
  ValidationProblem,
} from '../../http/problems/problem';
import { Page } from '../../http/pagination/page';
import type { PageRequest } from '../../http/pagination/paginate';
import type { Role } from '../permissions';
import type { ApiKeyEntity } from './api-key.entity';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-hash';
import { ApiKeyRevocations } from './api-key-revocations';
import { HOUR_MS } from './api-key-usage.recorder';
import { ApiKeyUsageRepository } from './api-key-usage.repository';
import { ApiKeyFilters, ApiKeysRepository } from './api-keys.repository';
import { MAX_USAGE_HOURS } from './dto/api-key-usage.dto';

export interface ApiKeyInput {
  name: string;
  role: Role;
  customerId?: string | null;
  /** RFC 3339 */
  expiresAt?: string | null;
}

/** A new key: its row and the key itself, which exists nowhere else from now on. */
export interface CreatedApiKey {
  entity: ApiKeyEntity;
  key: string;
}

export interface ApiKeyUsage {
  from: Date;
  to: Date;
  hours: { hour: Date; requests: number }[];
}

const DEFAULT_USAGE_DAYS = 7;

/** API key use cases (API.md §3 `/api-keys`): create (shown once), read, revoke, usage. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly usage: ApiKeyUsageRepository,
    private readonly revocations: ApiKeyRevocations,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(filters: ApiKeyFilters, page: PageRequest): Promise<Page<ApiKeyEntity>> {
    return this.keys.list(filters, page);
  }

  async get(id: string): Promise<ApiKeyEntity> {
    return (await this.keys.findLive(id)) ?? notFound(id);
  }

  async create(input: ApiKeyInput, commitHook?: CommitHook): Promise<CreatedApiKey> {
    const errors: FieldError[] = [];
    const customerId = input.customerId ?? null;
    if (input.role === 'customer' && customerId === null) {
      errors.push({ field: 'customerId', message: 'is required for a customer key' });
    }
    if (input.role !== 'customer' && customerId !== null) {
      errors.push({ field: 'customerId', message: 'is only for a customer key; omit it' });
    }
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      errors.push({ field: 'expiresAt', message: 'must be in the future' });
    }
    if (errors.length > 0) throw new ValidationProblem(errors);

    const key = generateApiKey();
    const entity = await inTransaction(
      this.dataSource,
      (manager) =>
        this.keys.insert(manager, {
          id: uuidv7(),
          name: input.name,
          prefix: displayPrefix(key),
          keyHash: hashApiKey(key),
          role: input.role,
          customerId,
          expiresAt,
        }),
      commitHook,
    );
    return { entity, key };
  }

  /**
   * Revokes a key: it is refused on this instance as soon as this returns, and on the
   * others within moments through Redis (at most the cache TTL without it).
   */
  async revoke(id: string, expectedVersions?: number[]): Promise<void> {
    const revoked = await inTransaction(this.dataSource, (manager) =>
      this.keys.revoke(manager, id, expectedVersions),
    );
    if (!revoked) notFound(id);
    await this.revocations.announce(revoked.keyHash);
  }

  /** Requests per hour of a live key, over [from, to) (default: the last 7 days). */
  async usageOf(id: string, from?: string, to?: string): Promise<ApiKeyUsage> {
    await this.get(id);
    const end = to ? new Date(to) : new Date();
    const start = floorToHour(
      from ? new Date(from) : new Date(end.getTime() - DEFAULT_USAGE_DAYS * 24 * HOUR_MS),
    );
    if (start.getTime() >= end.getTime()) {
      throw rangeProblem('from', 'must be before to');
    }
    if (end.getTime() - start.getTime() > MAX_USAGE_HOURS * HOUR_MS) {
      const days = MAX_USAGE_HOURS / 24;
      throw to
        ? rangeProblem('to', `must be at most ${days} days after from`)
        : rangeProblem('from', `must be at most ${days} days before to (default: now)`);
    }
    return { from: start, to: end, hours: await this.usage.hourly(id, start, end) };
  }
}

function floorToHour(date: Date): Date {
  return new Date(Math.floor(date.getTime() / HOUR_MS) * HOUR_MS);
}

/** The period is in the query string: a bad one is 400, as any bad query parameter. */
function rangeProblem(field: string, message: string): Problem {
  return new Problem('bad_request', `${field} ${message}.`, [{ field, message }]);
}

function notFound(id: string): never {
  throw new NotFoundProblem('API key', id);
}
