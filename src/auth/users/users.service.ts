import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { CommitHook, inTransaction } from '../../database/transaction';
import { NotFoundProblem, ValidationProblem } from '../../http/problems/problem';
import { Page } from '../../http/pagination/page';
import type { PageRequest } from '../../http/pagination/paginate';
import type { Role } from '../permissions';
import { decoyHash, hashPassword, verifyPassword } from './password-hasher';
import type { UserEntity } from './user.entity';
import { signInEmail } from './user-email';
import { UserFilters, UsersRepository } from './users.repository';

export interface UserInput {
  /** lowercased by the DTO (user-email.ts) */
  email: string;
  password: string;
  roles: Role[];
  name?: string | null;
}

export type UserPatch = Partial<UserInput>;

/**
 * User use cases (API.md §3 `/users`). Passwords are hashed with scrypt before they reach
 * the repository and are never returned. A customer is a user whose only role is
 * `customer`; its customerId is its own id (API.md §2).
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(filters: UserFilters, page: PageRequest): Promise<Page<UserEntity>> {
    return this.users.list(filters, page);
  }

  async get(id: string): Promise<UserEntity> {
    return (await this.users.findById(id)) ?? notFound(id);
  }

  /** The user with this id, or null: for the authorization server's account lookup. */
  findById(id: string): Promise<UserEntity | null> {
    return this.users.findById(id);
  }

  async create(input: UserInput, commitHook?: CommitHook): Promise<UserEntity> {
    checkRoles(input.roles);
    const passwordHash = await hashPassword(input.password);
    return inTransaction(
      this.dataSource,
      (manager) =>
        this.users.insert(manager, {
          id: uuidv7(),
          email: input.email,
          name: input.name ?? null,
          roles: input.roles,
          passwordHash,
        }),
      commitHook,
    );
  }

  async update(id: string, patch: UserPatch, expectedVersions?: number[]): Promise<UserEntity> {
    if (patch.roles !== undefined) checkRoles(patch.roles);
    // Hashed before the row is locked: the KDF is slow by design.
    const passwordHash =
      patch.password !== undefined ? await hashPassword(patch.password) : undefined;
    const updated = await inTransaction(this.dataSource, (manager) =>
      this.users.update(manager, id, expectedVersions, () => ({
        ...(patch.email !== undefined ? { email: patch.email } : {}),
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.roles !== undefined ? { roles: patch.roles } : {}),
        ...(passwordHash !== undefined ? { passwordHash } : {}),
      })),
    );
    return updated?.current ?? notFound(id);
  }

  async delete(id: string, expectedVersions?: number[]): Promise<void> {
    const deleted = await inTransaction(this.dataSource, (manager) =>
      this.users.delete(manager, id, expectedVersions),
    );
    if (!deleted) notFound(id);
  }

  /**
   * The user whose email and password these are, or null: for the login page of the
   * authorization server. An unknown email costs the same time as a wrong password, so
   * the answer does not tell which accounts exist.
   */
  async verifyPassword(email: string, password: string): Promise<UserEntity | null> {
    const user = await this.users.findByEmail(signInEmail(email));
    if (!user) {
      await verifyPassword(password, await decoyHash());
      return null;
    }
    return (await verifyPassword(password, user.passwordHash)) ? user : null;
  }
}

/** The customerId a user acts for: its own id when it is a customer (API.md §2). */
export function customerIdOf(user: Pick<UserEntity, 'id' | 'roles'>): string | null {
  return user.roles.includes('customer') ? user.id : null;
}

/**
 * A customer sees only its own rows while staff roles see everyone's: one user cannot be
 * both, or it would be unclear which rows it may read.
 */
function checkRoles(roles: Role[]): void {
  if (roles.includes('customer') && roles.length > 1) {
    throw new ValidationProblem([
      { field: 'roles', message: 'customer cannot be combined with other roles' },
    ]);
  }
}

function notFound(id: string): never {
  throw new NotFoundProblem('user', id);
}
