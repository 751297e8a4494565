import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { deleteWithLock, type Updated, updateWithLock } from '../../database/update-with-lock';
import type { CollectionSpec } from '../../http/pagination/collection-spec';
import { CursorCodec } from '../../http/pagination/cursor-codec';
import { Page } from '../../http/pagination/page';
import { paginate, PageRequest } from '../../http/pagination/paginate';
import { OAuthClientEntity } from './oauth-client.entity';

const ID = { column: 'c.id', property: 'id', kind: 'string' } as const;

export const OAUTH_CLIENTS: CollectionSpec = {
  name: 'oauth-clients',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    name: { column: 'c.name', property: 'name', kind: 'string' },
    createdAt: { column: 'c.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 'c.updated_at', property: 'updatedAt', kind: 'date' },
  },
};

/** All SQL about registered OAuth clients. */
@Injectable()
export class OAuthClientsRepository {
  constructor(
    @InjectRepository(OAuthClientEntity) private readonly clients: Repository<OAuthClientEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  list(page: PageRequest): Promise<Page<OAuthClientEntity>> {
    return paginate(this.clients.createQueryBuilder('c'), OAUTH_CLIENTS, page, this.cursors);
  }

  findById(id: string): Promise<OAuthClientEntity | null> {
    return this.clients.findOneBy({ id });
  }

  /** The client an OAuth request names, for the authorization server. */
  findByClientId(clientId: string): Promise<OAuthClientEntity | null> {
    return this.clients.findOneBy({ clientId });
  }

  async insert(
    manager: EntityManager,
    client: Omit<OAuthClientEntity, 'version' | 'createdAt' | 'updatedAt'>,
  ) {
    await manager.insert(OAuthClientEntity, client);
    return manager.findOneByOrFail(OAuthClientEntity, { id: client.id });
  }

  update(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
    change: (current: OAuthClientEntity) => Partial<OAuthClientEntity>,
  ): Promise<Updated<OAuthClientEntity> | null> {
    return updateWithLock(manager, OAuthClientEntity, 'c', {
      keyColumn: 'c.id',
      key: id,
      expectedVersions,
      archivable: false,
      change,
    });
  }

  /** Deletes the client under its row lock (If-Match checked); null when there is none. */
  async delete(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
  ): Promise<OAuthClientEntity | null> {
    return deleteWithLock(manager, OAuthClientEntity, 'c', {
      keyColumn: 'c.id',
      key: id,
      expectedVersions,
      archivable: false,
    });
  }
}
