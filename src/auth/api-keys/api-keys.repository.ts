import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { lockForWrite } from '../../database/update-with-lock';
import type { CollectionSpec } from '../../http/pagination/collection-spec';
import { CursorCodec } from '../../http/pagination/cursor-codec';
import { Page } from '../../http/pagination/page';
import { paginate, PageRequest } from '../../http/pagination/paginate';
import type { Role } from '../permissions';
import { ApiKeyEntity } from './api-key.entity';
import { displayPrefix, hashApiKey } from './api-key-hash';

export interface ApiKeyFilters {
  role?: Role;
  customerId?: string;
}

const ID = { column: 'k.id', property: 'id', kind: 'string' } as const;

export const API_KEYS: CollectionSpec = {
  name: 'api-keys',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    name: { column: 'k.name', property: 'name', kind: 'string' },
    createdAt: { column: 'k.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 'k.updated_at', property: 'updatedAt', kind: 'date' },
  },
};

/**
 * All SQL about API keys. A revoked key is kept (its usage too) but is invisible to every
 * read, as an archived product is; an expired one stays visible, and refused.
 */
@Injectable()
export class ApiKeysRepository {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  /** The key with this hash if it is neither revoked nor expired. */
  findUsableByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys
      .createQueryBuilder('k')
      .where('k.key_hash = :keyHash', { keyHash })
      .andWhere('k.revoked_at IS NULL')
      .andWhere('(k.expires_at IS NULL OR k.expires_at > now())')
      .getOne();
  }

  /**
   * Inserts the key unless one with the same hash exists; safe for instances booting
   * together. An existing one gets today's display prefix (earlier releases showed more).
   */
  async ensure(key: string, name: string, role: Role): Promise<void> {
    // a changed prefix is a change like any other: version and updatedAt move with it
    await this.keys.query(
      `INSERT INTO api_keys (id, name, prefix, key_hash, role, customer_id)
       VALUES ($1, $2, $3, $4, $5, NULL)
       ON CONFLICT (key_hash) DO UPDATE
         SET prefix = EXCLUDED.prefix, version = api_keys.version + 1, updated_at = now()
         WHERE api_keys.prefix <> EXCLUDED.prefix`,
      [uuidv7(), name, displayPrefix(key), hashApiKey(key), role],
    );
  }

  async insert(
    manager: EntityManager,
    key: Omit<ApiKeyEntity, 'version' | 'createdAt' | 'updatedAt' | 'revokedAt'>,
  ) {
    await manager.insert(ApiKeyEntity, key);
    return manager.findOneByOrFail(ApiKeyEntity, { id: key.id });
  }

  findLive(id: string): Promise<ApiKeyEntity | null> {
    return this.live().andWhere('k.id = :id', { id }).getOne();
  }

  list(filters: ApiKeyFilters, page: PageRequest): Promise<Page<ApiKeyEntity>> {
    const qb = this.live();
    if (filters.role !== undefined) qb.andWhere('k.role = :role', filters);
    if (filters.customerId !== undefined) qb.andWhere('k.customer_id = :customerId', filters);
    return paginate(qb, API_KEYS, page, this.cursors);
  }

  /**
   * Revokes a live key under its row lock, checking If-Match; returns the revoked key
   * (for its hash), or null when there is no live key with this id.
   */
  async revoke(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
  ): Promise<ApiKeyEntity | null> {
    const current = await lockForWrite(manager, ApiKeyEntity, 'k', {
      keyColumn: 'k.id',
      key: id,
      expectedVersions,
      archivable: false,
      condition: 'k.revoked_at IS NULL',
    });
    if (!current) return null;
    await manager
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ revokedAt: () => 'now()' })
      .where('id = :id', { id })
      .execute();
    return current;
  }

  private live() {
    return this.keys.createQueryBuilder('k').where('k.revoked_at IS NULL');
  }
}
