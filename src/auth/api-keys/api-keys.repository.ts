import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { Role } from '../permissions';
import { ApiKeyEntity } from './api-key.entity';
import { displayPrefix, hashApiKey } from './api-key-hash';

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /** The key with this hash if it is neither revoked nor expired. */
  findUsableByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys
      .createQueryBuilder('k')
      .where('k.key_hash = :keyHash', { keyHash })
      .andWhere('k.revoked_at IS NULL')
      .andWhere('(k.expires_at IS NULL OR k.expires_at > now())')
      .getOne();
  }

  /** Inserts the key unless one with the same hash exists; safe for instances booting together. */
  async ensure(key: string, name: string, role: Role): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .insert()
      .values({
        id: uuidv7(),
        name,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key),
        role,
        customerId: null,
      })
      .orIgnore()
      .execute();
  }
}
