import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { attachChildren } from '../../database/attach-children';
import { v7 as uuidv7 } from 'uuid';
import { CommitHook, inTransaction } from '../../database/transaction';
import type { CollectionSpec } from '../../http/pagination/collection-spec';
import { CursorCodec } from '../../http/pagination/cursor-codec';
import { Page } from '../../http/pagination/page';
import { paginate, PageRequest } from '../../http/pagination/paginate';
import type { EventEntity } from '../event.entity';
import type { EventType } from '../event-types';
import { WebhookEndpointsRepository } from '../webhook-endpoints/webhook-endpoints.repository';
import { rowsOf } from './sql';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { DeliveryStatus, WebhookDeliveryEntity } from './webhook-delivery.entity';

const ID = { column: 'd.id', property: 'id', kind: 'string' } as const;

/**
 * The error of an attempt whose worker stopped (killed, or cut off from the database)
 * after taking its lease and before recording an outcome: the lease ran out and another
 * worker took the delivery over. Whether the POST went out, and what came back, is not
 * known; it counts as an attempt, since the receiver may have got it.
 */
export const LOST_ATTEMPT =
  'outcome unknown: the worker sending this attempt stopped before recording it; the endpoint may have received it';

export const WEBHOOK_DELIVERIES: CollectionSpec = {
  name: 'webhook-deliveries',
  key: ID,
  defaultSort: '-createdAt',
  sortable: {
    id: ID,
    createdAt: { column: 'd.created_at', property: 'createdAt', kind: 'date' },
  },
};

export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: EventType;
}

/** A delivery a worker holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  leaseToken: string;
  endpointId: string;
  url: string;
  /** the current secret first, then the previous one while its overlap lasts */
  secrets: string[];
  /** attempts made before, in total and under the current schedule */
  attemptCount: number;
  scheduleStart: number;
  /**
   * This lease took over one that ran out without its outcome, whose attempt (the last of
   * `attemptCount`) was logged as LOST_ATTEMPT.
   */
  tookOverLostLease: boolean;
  event: Pick<EventEntity, 'id' | 'type' | 'createdAt' | 'payload'>;
}

/** What one attempt produced, as the worker measured it. */
export interface AttemptRecord {
  at: Date;
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  responseExcerpt: string | null;
}

/**
 * The state that follows an attempt, decided by the worker from the delivery's state
 * under lock: `retryInSeconds` for a scheduled retry, `disable` when the endpoint must
 * stop receiving.
 */
export interface AttemptResult {
  status: DeliveryStatus;
  retryInSeconds?: number;
  disable?: 'gone';
}

export interface RecordPolicy {
  decide(current: {
    status: DeliveryStatus;
    attemptNo: number;
    scheduleStart: number;
  }): AttemptResult;
}

export type RetryRequest =
  | { outcome: 'scheduled'; delivery: WebhookDeliveryEntity }
  | { outcome: 'in_flight' | 'endpoint_disabled' | 'not_found' };

interface FanOutEndpoint {
  id: string;
  event_types: string[];
  enabled: boolean;
  enabled_at: Date;
  disabled_at: Date | null;
}

/** Whether the endpoint was enabled at `time`: since it was last enabled, and not disabled yet then. */
function enabledAt(endpoint: FanOutEndpoint, time: Date): boolean {
  if (endpoint.enabled_at > time) return false;
  return endpoint.enabled || (endpoint.disabled_at !== null && time < endpoint.disabled_at);
}

/**
 * All SQL about deliveries and attempts. The worker's protocol (DESIGN.md §4):
 * `fanOut` turns new events into one delivery per subscribed endpoint; `claimDue` takes
 * a lease on due deliveries in one short statement (`FOR UPDATE SKIP LOCKED`, so
 * concurrent workers take disjoint rows); the worker sends outside any transaction;
 * `recordAttempt` writes the attempt and the next state only while the lease is still
 * its own; `release` hands back what it will not send.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(WebhookDeliveryEntity)
    private readonly deliveries: Repository<WebhookDeliveryEntity>,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly cursors: CursorCodec,
  ) {}

  /**
   * Takes up to `limit` events no worker has fanned out yet (oldest first) and creates a
   * delivery for every endpoint subscribed to the type (or `*`) that was enabled when the
   * event happened: pending if the endpoint still is, `dead` if it has been disabled
   * since (as its outstanding deliveries were), so the retries operation can resend it.
   * An endpoint created or enabled after the event gets none. Returns how many events it
   * handled.
   */
  fanOut(limit: number): Promise<number> {
    return inTransaction(this.dataSource, async (manager) => {
      const events = rowsOf<{ id: string; type: string; created_at: Date }>(
        await manager.query(
          `SELECT id, type, created_at FROM events WHERE fanned_out_at IS NULL
           ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [limit],
        ),
      );
      if (events.length === 0) return 0;
      const endpoints = rowsOf<FanOutEndpoint>(
        await manager.query(
          `SELECT id, event_types, enabled, enabled_at, disabled_at FROM webhook_endpoints
           WHERE enabled OR disabled_at > $1`,
          [events[0].created_at],
        ),
      );
      const rows = events.flatMap((event) =>
        endpoints
          .filter((e) => e.event_types.includes('*') || e.event_types.includes(event.type))
          .filter((e) => enabledAt(e, event.created_at))
          .map((e) => [uuidv7(), e.id, event.id, event.type, e.enabled ? 'pending' : 'dead']),
      );
      if (rows.length > 0) {
        const column = (i: number) => rows.map((row) => row[i]);
        await manager.query(
          `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, status, next_attempt_at)
           SELECT id, endpoint_id, event_id, event_type, status,
                  CASE WHEN status = 'pending' THEN now() END
           FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::varchar[], $5::varchar[])
             AS t (id, endpoint_id, event_id, event_type, status)
           ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
          [column(0), column(1), column(2), column(3), column(4)],
        );
      }
      await manager.query(`UPDATE events SET fanned_out_at = now() WHERE id = ANY($1::uuid[])`, [
        events.map((e) => e.id),
      ]);
      return events.length;
    });
  }

  /**
   * Leases up to `limit` due deliveries of enabled endpoints for `leaseSeconds` under
   * `leaseToken`, oldest due first. Rows another worker is claiming are skipped, rows
   * another worker holds a live lease on are not due. A lease that ran out, neither
   * recorded nor handed back, is taken over, and the attempt its worker may have sent is
   * logged in the same statement as one whose outcome is unknown (LOST_ATTEMPT), at the
   * time its lease was taken (reckoned back from its end by this lease's length: every
   * worker leases for as long).
   */
  async claimDue(
    limit: number,
    leaseSeconds: number,
    leaseToken: string,
  ): Promise<ClaimedDelivery[]> {
    const rows = rowsOf<ClaimRow>(
      await this.dataSource.query(
        `WITH due AS (
           SELECT d.id, d.lease_token IS NOT NULL AS lost,
                  d.locked_until - $2::integer * interval '1 second' AS lost_at
           FROM webhook_deliveries d
           JOIN webhook_endpoints w ON w.id = d.endpoint_id
           WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= now() AND w.enabled
             AND (d.locked_until IS NULL OR d.locked_until < now())
           ORDER BY d.next_attempt_at, d.id
           LIMIT $1
           FOR UPDATE OF d SKIP LOCKED
         ), claimed AS (
           UPDATE webhook_deliveries d
           SET locked_until = now() + $2::integer * interval '1 second', lease_token = $3,
               attempt_count = d.attempt_count + due.lost::integer,
               last_attempt_at = CASE WHEN due.lost THEN due.lost_at ELSE d.last_attempt_at END,
               last_status_code = CASE WHEN due.lost THEN NULL ELSE d.last_status_code END,
               last_error = CASE WHEN due.lost THEN $5 ELSE d.last_error END,
               last_latency_ms = CASE WHEN due.lost THEN 0 ELSE d.last_latency_ms END,
               last_response_excerpt =
                 CASE WHEN due.lost THEN NULL ELSE d.last_response_excerpt END
           FROM due, events e, webhook_endpoints w
           WHERE d.id = due.id AND e.id = d.event_id AND w.id = d.endpoint_id
           RETURNING d.id, d.endpoint_id, d.attempt_count, d.schedule_start, due.lost,
             due.lost_at, e.id AS event_id, e.type AS event_type,
             e.created_at AS event_created_at, e.payload AS event_payload, w.url, w.secret,
             CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END
               AS previous_secret
         ), lost AS (
           SELECT c.id, c.attempt_count, c.lost_at, row_number() OVER () AS n
           FROM claimed c WHERE c.lost
         ), logged AS (
           INSERT INTO webhook_attempts (id, delivery_id, attempt_no, at, succeeded,
                                         status_code, error, latency_ms, response_excerpt)
           SELECT ids.id, lost.id, lost.attempt_count, lost.lost_at, false, NULL, $5, 0, NULL
           FROM lost JOIN unnest($4::uuid[]) WITH ORDINALITY AS ids (id, n) USING (n)
         )
         SELECT * FROM claimed`,
        [
          limit,
          leaseSeconds,
          leaseToken,
          Array.from({ length: limit }, () => uuidv7()),
          LOST_ATTEMPT,
        ],
      ),
    );
    return rows.map((row) => ({
      id: row.id,
      leaseToken,
      endpointId: row.endpoint_id,
      url: row.url,
      secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret],
      attemptCount: row.attempt_count,
      scheduleStart: row.schedule_start,
      tookOverLostLease: row.lost,
      event: {
        id: row.event_id,
        type: row.event_type,
        createdAt: new Date(row.event_created_at),
        payload: row.event_payload,
      },
    }));
  }

  /**
   * Writes one attempt and the state after it, if the lease is still `claim`'s (null
   * otherwise: the lease ran out and another worker owns the delivery now). Keeps the
   * endpoint's failing streak and disables it when `policy` or the streak says so; a
   * disabled endpoint's outstanding deliveries are dead.
   */
  recordAttempt(
    claim: ClaimedDelivery,
    attempt: AttemptRecord,
    policy: RecordPolicy,
  ): Promise<{ result: AttemptResult; attemptNo: number; endpointDisabled: boolean } | null> {
    return inTransaction(this.dataSource, async (manager) => {
      const [current] = rowsOf<{
        status: DeliveryStatus;
        attempt_count: number;
        schedule_start: number;
      }>(
        await manager.query(
          `SELECT status, attempt_count, schedule_start FROM webhook_deliveries
           WHERE id = $1 AND lease_token = $2 FOR UPDATE`,
          [claim.id, claim.leaseToken],
        ),
      );
      if (!current) return null;
      const attemptNo = current.attempt_count + 1;
      const decided = policy.decide({
        status: current.status,
        attemptNo,
        scheduleStart: current.schedule_start,
      });
      // The endpoint's health first (this may wait for another worker's transaction on
      // the endpoint row), so the delivery's own state below sees the outcome.
      let endpointDisabled = false;
      if (attempt.succeeded) {
        await this.endpoints.markHealthy(manager, claim.endpointId);
      } else if (decided.disable) {
        endpointDisabled = await this.endpoints.disable(manager, claim.endpointId, decided.disable);
      } else {
        await this.endpoints.markFailing(manager, claim.endpointId);
      }
      if (endpointDisabled) await this.killOutstanding(manager, claim.endpointId);
      const enabled = await this.endpoints.isEnabled(manager, claim.endpointId);
      // a disabled endpoint gets no further attempt
      const result: AttemptResult =
        !enabled && (decided.status === 'failed' || decided.status === 'pending')
          ? { status: 'dead' }
          : decided;
      await manager.insert(WebhookAttemptEntity, {
        id: uuidv7(),
        deliveryId: claim.id,
        attemptNo,
        at: attempt.at,
        succeeded: attempt.succeeded,
        statusCode: attempt.statusCode,
        error: attempt.error,
        latencyMs: attempt.latencyMs,
        responseExcerpt: attempt.responseExcerpt,
      });
      await manager.query(
        `UPDATE webhook_deliveries
         SET status = $2::varchar, attempt_count = $3,
             next_attempt_at = CASE WHEN $2::varchar = 'failed'
                                    THEN now() + $4::integer * interval '1 second' END,
             locked_until = NULL, lease_token = NULL,
             last_attempt_at = $5, last_status_code = $6, last_error = $7,
             last_latency_ms = $8, last_response_excerpt = $9, updated_at = now()
         WHERE id = $1`,
        [
          claim.id,
          result.status,
          attemptNo,
          result.retryInSeconds ?? 0,
          attempt.at,
          attempt.statusCode,
          attempt.error,
          attempt.latencyMs,
          attempt.responseExcerpt,
        ],
      );
      return { result, attemptNo, endpointDisabled };
    });
  }

  /**
   * Endpoints failing for `disableAfterSeconds` are disabled and their outstanding
   * deliveries killed, whether or not an attempt is due (API.md §10); returns the
   * endpoints disabled.
   */
  async disableFailingEndpoints(disableAfterSeconds: number): Promise<string[]> {
    // Every worker asks every second and the answer is nearly always no: one read, and a
    // transaction only when there is something to disable.
    if (!(await this.endpoints.anyFailingFor(this.dataSource.manager, disableAfterSeconds))) {
      return [];
    }
    return this.dataSource.transaction(async (manager) => {
      const ids = await this.endpoints.disableAllFailing(manager, disableAfterSeconds);
      for (const id of ids) await this.killOutstanding(manager, id);
      return ids;
    });
  }

  /** Gives up the lease on deliveries a worker will not send after all. */
  async release(ids: string[], leaseToken: string): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET locked_until = NULL, lease_token = NULL
       WHERE id = ANY($1::uuid[]) AND lease_token = $2`,
      [ids, leaseToken],
    );
  }

  /**
   * The deliveries of a disabled endpoint that still wait for an attempt are dead. A
   * row another transaction is recording right now is skipped rather than waited for
   * (workers lock deliveries before endpoints): it is not claimed while the endpoint is
   * disabled anyway.
   */
  async killOutstanding(manager: EntityManager, endpointId: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_deliveries SET status = 'dead', next_attempt_at = NULL, updated_at = now()
       WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE endpoint_id = $1 AND status IN ('pending', 'failed')
         FOR UPDATE SKIP LOCKED
       )`,
      [endpointId],
    );
  }

  async listForEndpoint(
    endpointId: string,
    filters: DeliveryFilters,
    page: PageRequest,
  ): Promise<Page<WebhookDeliveryEntity>> {
    const qb = this.deliveries
      .createQueryBuilder('d')
      .where('d.endpoint_id = :endpointId', { endpointId });
    if (filters.status !== undefined) qb.andWhere('d.status = :status', filters);
    if (filters.eventType !== undefined) qb.andWhere('d.event_type = :eventType', filters);
    const result = await paginate(qb, WEBHOOK_DELIVERIES, page, this.cursors);
    await attachAttempts(this.deliveries.manager, result.items);
    return result;
  }

  async findForEndpoint(endpointId: string, id: string): Promise<WebhookDeliveryEntity | null> {
    const delivery = await this.deliveries.findOneBy({ id, endpointId });
    if (delivery) await attachAttempts(this.deliveries.manager, [delivery]);
    return delivery;
  }

  /**
   * Schedules a delivery for an immediate attempt with a fresh retry schedule, whatever
   * its status, unless a worker is sending it right now or its endpoint is disabled.
   */
  scheduleRetry(endpointId: string, id: string, commitHook?: CommitHook): Promise<RetryRequest> {
    return inTransaction(
      this.dataSource,
      async (manager) => {
        const [row] = rowsOf<{ leased: boolean; enabled: boolean }>(
          await manager.query(
            `SELECT coalesce(d.locked_until > now(), false) AS leased, w.enabled
           FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
           WHERE d.id = $1 AND d.endpoint_id = $2
           FOR UPDATE OF d`,
            [id, endpointId],
          ),
        );
        if (!row) return { outcome: 'not_found' };
        if (row.leased) return { outcome: 'in_flight' };
        if (!row.enabled) return { outcome: 'endpoint_disabled' };
        await manager.query(
          `UPDATE webhook_deliveries
         SET status = 'pending', next_attempt_at = now(), schedule_start = attempt_count,
             updated_at = now()
         WHERE id = $1`,
          [id],
        );
        const delivery = await manager.findOneByOrFail(WebhookDeliveryEntity, { id });
        await attachAttempts(manager, [delivery]);
        return { outcome: 'scheduled', delivery };
      },
      commitHook,
    );
  }
}

interface ClaimRow {
  id: string;
  lost: boolean;
  endpoint_id: string;
  attempt_count: number;
  schedule_start: number;
  event_id: string;
  event_type: EventType;
  event_created_at: Date | string;
  event_payload: object;
  url: string;
  secret: string;
  previous_secret: string | null;
}

/** Loads the attempts of `deliveries` with one query, oldest first. */
const attachAttempts = (manager: EntityManager, deliveries: WebhookDeliveryEntity[]) =>
  attachChildren(
    manager,
    deliveries,
    WebhookAttemptEntity,
    { parent: 'deliveryId', order: 'attemptNo' },
    (delivery, attempts) => {
      delivery.attempts = attempts;
    },
  );
