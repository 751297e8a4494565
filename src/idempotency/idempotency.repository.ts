import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PreparedStatement } from '../database/prepared-statement';

/** How long a key and its answer are kept (API.md §6). */
export const KEY_TTL = '24 hours';
/**
 * A claim still `in_flight` after this long belongs to a request that died with its
 * process (no request runs this long); a retry may take the key over.
 */
export const IN_FLIGHT_LEASE_MS = 120_000;
const LEASE = `${IN_FLIGHT_LEASE_MS} milliseconds`;

/** The first answer, as it is replayed. */
export interface StoredResponse {
  status: number;
  /** the JSON body, or null when there was none */
  body: unknown;
  headers: Record<string, string>;
}

/**
 * `in_flight`: claimed, nothing committed yet; `committed`: the request's transaction
 * committed, its answer is on the way; `done`: the answer is stored.
 */
export type IdempotencyStatus = 'in_flight' | 'committed' | 'done';

export interface IdempotencyRecord {
  requestHash: string;
  status: IdempotencyStatus;
  response: StoredResponse | null;
  /**
   * Committed, and its lease ended without an answer stored: the process died between the
   * commit and the answer. The request was carried out and will never run again.
   */
  answerLost: boolean;
}

/** A claim: ours (with the fencing token that completes or releases it), or someone's. */
export type Claim =
  { mine: true; claimedAt: Date } | { mine: false; record: IdempotencyRecord | null };

interface Row {
  request_hash: string;
  status: IdempotencyStatus;
  response_status: number | null;
  response_body: unknown;
  response_headers: Record<string, string> | null;
  answer_lost: boolean;
}

// The statements every idempotent POST runs, parsed once per connection.
const CLAIM = new PreparedStatement(
  `INSERT INTO idempotency_keys AS k (principal, key, request_hash, status, expires_at)
   VALUES ($1, $2, $3, 'in_flight', now() + $4::interval)
   ON CONFLICT (principal, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, status = 'in_flight', claimed_at = now(),
          expires_at = EXCLUDED.expires_at,
          response_status = NULL, response_body = NULL, response_headers = NULL
    WHERE k.expires_at <= now()
       OR (k.status = 'in_flight' AND k.claimed_at <= now() - $5::interval)
   RETURNING claimed_at`,
);
const RECORD = new PreparedStatement(
  `SELECT request_hash, status, response_status, response_body, response_headers,
          status = 'committed' AND claimed_at <= now() - $3::interval AS answer_lost
     FROM idempotency_keys WHERE principal = $1 AND key = $2`,
);
const MARK_COMMITTED = new PreparedStatement(
  `UPDATE idempotency_keys SET status = 'committed'
    WHERE principal = $1 AND key = $2 AND claimed_at = $3
      AND status IN ('in_flight', 'committed')`,
);
const COMPLETE = new PreparedStatement(
  `UPDATE idempotency_keys
      SET status = 'done', response_status = $4, response_body = $5::json,
          response_headers = $6::jsonb
    WHERE principal = $1 AND key = $2 AND claimed_at = $3
      AND status IN ('in_flight', 'committed')`,
);
const RELEASE = new PreparedStatement(
  `DELETE FROM idempotency_keys
    WHERE principal = $1 AND key = $2 AND claimed_at = $3 AND status = 'in_flight'`,
);

/** All SQL about idempotency keys: one row per (caller, key), claimed by inserting it. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims the key with one INSERT that does nothing when a live record exists; an
   * expired record, or an abandoned claim, is taken over by the same statement. When
   * the key is someone else's, returns that record (null if it vanished meanwhile).
   */
  async claim(principal: string, key: string, requestHash: string): Promise<Claim> {
    const claimed = await CLAIM.run<{ claimed_at: Date }[]>(this.dataSource, [
      principal,
      key,
      requestHash,
      KEY_TTL,
      LEASE,
    ]);
    if (claimed[0]) return { mine: true, claimedAt: claimed[0].claimed_at };
    const rows = await RECORD.run<Row[]>(this.dataSource, [principal, key, LEASE]);
    const row = rows[0];
    if (!row) return { mine: false, record: null };
    return {
      mine: false,
      record: {
        requestHash: row.request_hash,
        status: row.status,
        response:
          row.response_status === null
            ? null
            : {
                status: row.response_status,
                body: row.response_body,
                headers: row.response_headers ?? {},
              },
        answerLost: row.answer_lost,
      },
    };
  }

  /**
   * Inside the request's own transaction: the claim's work is committing. False when the
   * claim is no longer ours (its lease ended and a retry took the key over).
   */
  async markCommitted(
    manager: EntityManager,
    principal: string,
    key: string,
    claimedAt: Date,
  ): Promise<boolean> {
    const [, marked] = await MARK_COMMITTED.run<[unknown[], number]>(manager, [
      principal,
      key,
      claimedAt,
    ]);
    return marked === 1;
  }

  /** Stores the answer of the request that holds the claim. */
  async complete(
    principal: string,
    key: string,
    claimedAt: Date,
    response: StoredResponse,
  ): Promise<void> {
    await COMPLETE.run(this.dataSource, [
      principal,
      key,
      claimedAt,
      response.status,
      response.body === null ? null : JSON.stringify(response.body),
      JSON.stringify(response.headers),
    ]);
  }

  /**
   * Gives the key back (the request failed on our side), so a retry runs afresh; not
   * once something the request did has committed.
   */
  async release(principal: string, key: string, claimedAt: Date): Promise<void> {
    await RELEASE.run(this.dataSource, [principal, key, claimedAt]);
  }

  /** Deletes up to `limit` expired records; returns how many. */
  async purgeExpired(limit = 1000): Promise<number> {
    const [, deleted]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE (principal, key) IN (
         SELECT principal, key FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
      [limit],
    );
    return deleted;
  }
}
