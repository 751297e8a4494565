import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { deleteWithLock, type Updated, updateWithLock } from '../../database/update-with-lock';
import type { CollectionSpec } from '../../http/pagination/collection-spec';
import { CursorCodec } from '../../http/pagination/cursor-codec';
import { Page } from '../../http/pagination/page';
import { paginate, PageRequest } from '../../http/pagination/paginate';
import { rowsOf } from '../deliveries/sql';
import { DisabledReason, WebhookEndpointEntity } from './webhook-endpoint.entity';

const ID = { column: 'w.id', property: 'id', kind: 'string' } as const;

export const WEBHOOK_ENDPOINTS: CollectionSpec = {
  name: 'webhook-endpoints',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    createdAt: { column: 'w.created_at', property: 'createdAt', kind: 'date' },
  },
};

export type NewWebhookEndpoint = Pick<
  WebhookEndpointEntity,
  'id' | 'url' | 'description' | 'eventTypes' | 'secret'
>;

/** An enabled endpoint whose failing streak has lasted $1 seconds (WEBHOOK_DISABLE_AFTER_S). */
const FAILING_TOO_LONG = `enabled AND failing_since <= now() - $1::integer * interval '1 second'`;

/**
 * All SQL about webhook endpoints: the resource's reads and writes, and the health
 * bookkeeping the workers do, inside their recording transaction and in their sweep.
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(
    @InjectRepository(WebhookEndpointEntity)
    private readonly endpoints: Repository<WebhookEndpointEntity>,
    private readonly cursors: CursorCodec,
  ) {}

  list(page: PageRequest): Promise<Page<WebhookEndpointEntity>> {
    return paginate(this.endpoints.createQueryBuilder('w'), WEBHOOK_ENDPOINTS, page, this.cursors);
  }

  findById(id: string): Promise<WebhookEndpointEntity | null> {
    return this.endpoints.findOneBy({ id });
  }

  async insert(
    manager: EntityManager,
    endpoint: NewWebhookEndpoint,
  ): Promise<WebhookEndpointEntity> {
    await manager.insert(WebhookEndpointEntity, { ...endpoint, enabled: true });
    return manager.findOneByOrFail(WebhookEndpointEntity, { id: endpoint.id });
  }

  /** Lock, check If-Match, apply `change`, bump the version; null when there is no such endpoint. */
  update(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
    change: (current: WebhookEndpointEntity) => Partial<WebhookEndpointEntity>,
  ): Promise<Updated<WebhookEndpointEntity> | null> {
    return updateWithLock(manager, WebhookEndpointEntity, 'w', {
      keyColumn: 'w.id',
      key: id,
      expectedVersions,
      archivable: false,
      change,
    });
  }

  /** Deletes the endpoint with its deliveries and attempts; false when there is none. */
  async delete(
    manager: EntityManager,
    id: string,
    expectedVersions: number[] | undefined,
  ): Promise<boolean> {
    const deleted = await deleteWithLock(manager, WebhookEndpointEntity, 'w', {
      keyColumn: 'w.id',
      key: id,
      expectedVersions,
      archivable: false,
    });
    return deleted !== null;
  }

  /**
   * A successful attempt ends a failing streak. `failingSince` is part of the resource,
   * so clearing it is a change: version and updatedAt move with it (API.md §3), or a
   * client's If-None-Match would keep answering 304 with the old value. A success on an
   * endpoint that was not failing changes nothing, and the version stays.
   */
  async markHealthy(manager: EntityManager, id: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoints
       SET failing_since = NULL, version = version + 1, updated_at = now()
       WHERE id = $1 AND failing_since IS NOT NULL`,
      [id],
    );
  }

  /**
   * A failed attempt starts a failing streak, or continues it. Starting one bumps
   * version and updatedAt like any change (see markHealthy); continuing one changes
   * nothing visible, so it does not. The workers' sweep (disableAllFailing) disables an
   * endpoint once its streak is long enough.
   */
  async markFailing(manager: EntityManager, id: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoints
       SET failing_since = now(), version = version + 1, updated_at = now()
       WHERE id = $1 AND failing_since IS NULL`,
      [id],
    );
  }

  /** Whether an enabled endpoint's failing streak has lasted `disableAfterSeconds`. */
  async anyFailingFor(manager: EntityManager, disableAfterSeconds: number): Promise<boolean> {
    const [row] = rowsOf<{ due: boolean }>(
      await manager.query(
        `SELECT EXISTS (
           SELECT 1 FROM webhook_endpoints
           WHERE ${FAILING_TOO_LONG}
         ) AS due`,
        [disableAfterSeconds],
      ),
    );
    return row.due;
  }

  /**
   * Disables every enabled endpoint whose failing streak has lasted `disableAfterSeconds`
   * (WEBHOOK_DISABLE_AFTER_S), as a change of the resource, whether or not an attempt is
   * due; returns their ids. The one place this rule is applied: a streak can outlast an
   * endpoint's last retry.
   */
  async disableAllFailing(manager: EntityManager, disableAfterSeconds: number): Promise<string[]> {
    const disabled = rowsOf<{ id: string }>(
      await manager.query(
        `UPDATE webhook_endpoints
         SET enabled = false, disabled_reason = 'failing', disabled_at = now(),
             version = version + 1, updated_at = now()
         WHERE ${FAILING_TOO_LONG}
         RETURNING id`,
        [disableAfterSeconds],
      ),
    );
    return disabled.map((row) => row.id);
  }

  async isEnabled(manager: EntityManager, id: string): Promise<boolean> {
    const [row] = rowsOf<{ enabled: boolean }>(
      await manager.query(`SELECT enabled FROM webhook_endpoints WHERE id = $1`, [id]),
    );
    return row?.enabled === true;
  }

  /** Disables an enabled endpoint for `reason`; true when this call disabled it. */
  async disable(manager: EntityManager, id: string, reason: DisabledReason): Promise<boolean> {
    const disabled = rowsOf(
      await manager.query(
        `UPDATE webhook_endpoints
         SET enabled = false, disabled_reason = $2, disabled_at = now(),
             version = version + 1, updated_at = now()
         WHERE id = $1 AND enabled
         RETURNING id`,
        [id, reason],
      ),
    );
    return disabled.length > 0;
  }
}
