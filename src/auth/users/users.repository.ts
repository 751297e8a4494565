import { violates } from '../../database/constraint-violation';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { deleteWithLock, type Updated, updateWithLock } from '../../database/update-with-lock';
import { ConflictProblem } from '../../http/problems/problem';
import type { CollectionSpec } from '../../http/pagination/collection-spec';
import { CursorCodec } from '../../http/pagination/cursor-codec';
import { Page } from '../../http/pagination/page';
import { paginate, PageRequest } from '../../http/pagination/paginate';
import type { Role } from '../permissions';
import { UserEntity } from './user.entity';

export interface UserFilters {
  role?: Role;
  email?: string;
}

const ID = { column: 'u.id', property: 'id', kind: 'string' } as const;

export const USERS: CollectionSpec = {
  name: 'users',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    email: { column: 'u.email', property: 'email', kind: 'string' },
    createdAt: { column: 'u.created_at', property: 'createdAt', kind: 'date' },
    updatedAt: { column: 'u.updated_at', property: 'updatedAt', kind: 'date' },
  },
};

/** All SQL about users. Emails arrive lowercased; the unique constraint settles races. */
@Injectable()
export class UsersRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ email });
  }

  list(filters: UserFilters, page: PageRequest): Promise<Page<UserEntity>> {
    const qb = this.users.createQueryBuilder('u');
    if (filters.role !== undefined) qb.andWhere(':role = ANY(u.roles)', filters);
    if (filters.email !== undefined) qb.andWhere('u.email = :email', filters);
    return paginate(qb, USERS, page, this.cursors);
  }

  async insert(
    manager: EntityManager,
    user: Omit<UserEntity, 'version' | 'createdAt' | 'updatedAt'>,
  ): Promise<UserEntity> {
    try {
      await manager.insert(UserEntity, user);
    } catch (error) {
      throw emailTaken(error, user.email) ?? error;
    }
    return manager.findOneByOrFail(UserEntity, { id: user.id });
  }

  async update(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
    change: (current: UserEntity) => Partial<UserEntity>,
  ): Promise<Updated<UserEntity> | null> {
    try {
      return await updateWithLock(manager, UserEntity, 'u', {
        keyColumn: 'u.id',
        key: id,
        expectedVersions,
        archivable: false,
        change,
      });
    } catch (error) {
      throw emailTaken(error) ?? error;
    }
  }

  /** Deletes under the row lock, checking If-Match; false when there is no such user. */
  async delete(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
  ): Promise<boolean> {
    const deleted = await deleteWithLock(manager, UserEntity, 'u', {
      keyColumn: 'u.id',
      key: id,
      expectedVersions,
      archivable: false,
    });
    return deleted !== null;
  }
}

function emailTaken(error: unknown, email?: string): ConflictProblem | undefined {
  if (violates(error, 'users_email_unique')) {
    return new ConflictProblem(
      email
        ? `${email} is already the email of another user.`
        : 'This email is already the email of another user.',
    );
  }
  return undefined;
}
