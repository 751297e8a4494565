import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { CommitHook, inTransaction } from '../../database/transaction';
import { FieldError, NotFoundProblem, ValidationProblem } from '../../http/problems/problem';
import { Page } from '../../http/pagination/page';
import type { PageRequest } from '../../http/pagination/paginate';
import { OAuthPayloadsRepository } from '../oauth/oauth-payloads.repository';
import type { Permission } from '../permissions';
import { redirectUriProblems } from './oauth-client-rules';
import { generateClientId, generateClientSecret, hashClientSecret } from './oauth-client-secret';
import type { OAuthClientEntity } from './oauth-client.entity';
import { OAuthClientsRepository } from './oauth-clients.repository';

export interface OAuthClientInput {
  name: string;
  redirectUris: string[];
  public: boolean;
  scopes: Permission[];
}

export type OAuthClientPatch = Partial<Omit<OAuthClientInput, 'public'>>;

/** A new client: its row, and a confidential client's secret, which exists nowhere else. */
export interface CreatedOAuthClient {
  entity: OAuthClientEntity;
  secret?: string;
}

/** OAuth client use cases (API.md §3 `/oauth-clients`). */
@Injectable()
export class OAuthClientsService {
  constructor(
    private readonly clients: OAuthClientsRepository,
    private readonly payloads: OAuthPayloadsRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  list(page: PageRequest): Promise<Page<OAuthClientEntity>> {
    return this.clients.list(page);
  }

  async get(id: string): Promise<OAuthClientEntity> {
    return (await this.clients.findById(id)) ?? notFound(id);
  }

  async create(input: OAuthClientInput, commitHook?: CommitHook): Promise<CreatedOAuthClient> {
    check(input.public, input.redirectUris);
    const secret = input.public ? undefined : generateClientSecret();
    const entity = await inTransaction(
      this.dataSource,
      (manager) =>
        this.clients.insert(manager, {
          id: uuidv7(),
          clientId: generateClientId(),
          name: input.name,
          redirectUris: input.redirectUris,
          public: input.public,
          scopes: input.scopes,
          secretHash: secret === undefined ? null : hashClientSecret(secret),
        }),
      commitHook,
    );
    return { entity, secret };
  }

  async update(
    id: string,
    patch: OAuthClientPatch,
    expectedVersions?: number[],
  ): Promise<OAuthClientEntity> {
    const updated = await inTransaction(this.dataSource, (manager) =>
      this.clients.update(manager, id, expectedVersions, (current) => {
        if (patch.redirectUris !== undefined) check(current.public, patch.redirectUris);
        return {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.redirectUris !== undefined ? { redirectUris: patch.redirectUris } : {}),
          ...(patch.scopes !== undefined ? { scopes: patch.scopes } : {}),
        };
      }),
    );
    return updated?.current ?? notFound(id);
  }

  /**
   * Deletes the client and everything the authorization server issued to it (codes,
   * refresh tokens, grants). Its access tokens are JWTs: they stay valid until they
   * expire, minutes later.
   */
  async remove(id: string, expectedVersions?: number[]): Promise<void> {
    const deleted = await inTransaction(this.dataSource, (manager) =>
      this.clients.delete(manager, id, expectedVersions),
    );
    if (!deleted) notFound(id);
    await this.payloads.revokeByClientId(deleted.clientId);
  }
}

function check(isPublic: boolean, redirectUris: string[]): void {
  const problems: FieldError[] = redirectUriProblems(redirectUris);
  if (isPublic && redirectUris.length === 0) {
    problems.push({
      field: 'redirectUris',
      message: 'a public client needs at least one (it can only use the code flow)',
    });
  }
  if (problems.length > 0) throw new ValidationProblem(problems);
}

function notFound(id: string): never {
  throw new NotFoundProblem('OAuth client', id);
}
