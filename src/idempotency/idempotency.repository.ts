import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { atCommit } from '../database/pipeline';
import { PreparedStatement } from '../database/prepared-statement';

/** How long a key and its answer are kept (API.md §6). */
export const KEY_TTL = '24 hours';
/**
 * A key `committed` this long without its answer belongs to a request whose process died
 * between its commit and storing the answer (no request runs this long): its answer is
 * lost. Until then a retry is told the first request is still running. Only earlier
 * versions stored the answer after the commit; this reads the records they left (a
 * rolling deploy runs both for a while).
 */
const ANSWER_LEASE_MS = 120_000;
const LEASE = `${ANSWER_LEASE_MS} milliseconds`;

/** The first answer, as it is replayed. */
export interface StoredResponse {
  status: number;
  /** the JSON body, or null when there was none */
  body: unknown;
  headers: Record<string, string>;
}

/**
 * `committed`: the claim, written first in the request's own transaction; `done`: the
 * answer is stored, last in the same transaction (or alone, for an answer that committed
 * no work). A committed record without its answer, or an `in_flight` claim, is only found
 * where an earlier version of the service wrote it.
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

/**
 * A claim inside the request's transaction: ours, or someone else's: the record they
 * hold, or null while a request holding the key still runs.
 */
export type Claim = { mine: true } | { mine: false; record: IdempotencyRecord | null };

interface Row {
  request_hash: string;
  status: IdempotencyStatus;
  response_status: number | null;
  response_body: unknown;
  response_headers: Record<string, string> | null;
  answer_lost: boolean;
}

/**
 * The key's claim, first statement of the request's own transaction. The advisory lock
 * (held until that transaction ends, released by PostgreSQL if its connection dies) is
 * how a retry sees that the first request still runs: it cannot take it and answers 409
 * at once, where waiting on the row's uncommitted insert would block until the first
 * finished. Holding the lock, the INSERT claims the key as `committed`: the row becomes
 * visible only if the request's work commits, and rolls back with it. An expired record,
 * or an abandoned `in_flight` claim of an earlier version, is taken over by the same
 * statement.
 */
const CLAIM = new PreparedStatement(
  `WITH lock AS (
     SELECT pg_try_advisory_xact_lock(hashtextextended($1::text || E'\n' || $2::text, 0)) AS held
   ), claimed AS (
     INSERT INTO idempotency_keys AS k (principal, key, request_hash, status, expires_at)
     SELECT $1, $2, $3, 'committed', now() + $4::interval FROM lock WHERE held
     ON CONFLICT (principal, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, status = 'committed', claimed_at = now(),
            expires_at = EXCLUDED.expires_at,
            response_status = NULL, response_body = NULL, response_headers = NULL
      WHERE k.expires_at <= now()
         OR (k.status = 'in_flight' AND k.claimed_at <= now() - $5::interval)
     RETURNING claimed_at
   )
   SELECT lock.held, claimed.claimed_at FROM lock LEFT JOIN claimed ON true`,
);
const RECORD = new PreparedStatement(
  `SELECT request_hash, status, response_status, response_body, response_headers,
          status = 'committed' AND claimed_at <= now() - $3::interval AS answer_lost
     FROM idempotency_keys WHERE principal = $1 AND key = $2 AND expires_at > now()`,
);
/** The answer, sent with the COMMIT of the transaction that claimed the key. */
const COMPLETE = new PreparedStatement(
  `UPDATE idempotency_keys
      SET status = 'done', response_status = $3, response_body = $4::json,
          response_headers = $5::jsonb
    WHERE principal = $1 AND key = $2 AND status = 'committed'`,
);
/**
 * The answer of a request that committed nothing (it failed with a 4xx, or never reached
 * its transaction), as a new record if the key is free. Nothing when another request
 * holds the key.
 */
const ANSWER_FREE_KEY = new PreparedStatement(
  `INSERT INTO idempotency_keys AS k (principal, key, request_hash, status, expires_at,
                                      response_status, response_body, response_headers)
   VALUES ($1, $2, $3, 'done', now() + $4::interval, $5, $6::json, $7::jsonb)
   ON CONFLICT (principal, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, status = 'done', claimed_at = now(),
          expires_at = EXCLUDED.expires_at, response_status = EXCLUDED.response_status,
          response_body = EXCLUDED.response_body, response_headers = EXCLUDED.response_headers
    WHERE k.expires_at <= now()
   RETURNING 1`,
);

/** All SQL about idempotency keys: one row per (caller, key). */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inside the request's transaction, before its work: claims the key (CLAIM says how). */
  async claim(
    manager: EntityManager,
    principal: string,
    key: string,
    requestHash: string,
  ): Promise<Claim> {
    const [claim] = await CLAIM.run<{ held: boolean; claimed_at: Date | null }[]>(manager, [
      principal,
      key,
      requestHash,
      KEY_TTL,
      LEASE,
    ]);
    if (claim.claimed_at) return { mine: true };
    return { mine: false, record: claim.held ? await this.find(principal, key, manager) : null };
  }

  /** The live record of a key, if any. */
  async find(
    principal: string,
    key: string,
    on: DataSource | EntityManager = this.dataSource,
  ): Promise<IdempotencyRecord | null> {
    const [row] = await RECORD.run<Row[]>(on, [principal, key, LEASE]);
    if (!row) return null;
    return {
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
    };
  }

  /**
   * Stores the answer on our own claim, with the commit of the transaction that holds it
   * (pipeline.ts): the claim and the answer commit together or not at all. The claim was
   * written by that transaction and stays locked by it, so the UPDATE cannot miss it.
   */
  async complete(
    manager: EntityManager,
    principal: string,
    key: string,
    response: StoredResponse,
  ): Promise<void> {
    const answer = [principal, key, ...columns(response)];
    await atCommit(manager, () => COMPLETE.run(manager, answer));
  }

  /**
   * Stores the answer of a request that holds no claim (it failed with a 4xx before or
   * inside its transaction, which rolled the claim back), as a new record if the key is
   * free. False when another request holds the key.
   */
  async answer(
    principal: string,
    key: string,
    requestHash: string,
    response: StoredResponse,
  ): Promise<boolean> {
    const stored = await ANSWER_FREE_KEY.run<unknown[]>(this.dataSource, [
      principal,
      key,
      requestHash,
      KEY_TTL,
      ...columns(response),
    ]);
    return stored.length === 1;
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

/** An answer as its three columns: status, JSON body (null without one), headers. */
function columns(response: StoredResponse): [number, string | null, string] {
  return [
    response.status,
    response.body === null ? null : JSON.stringify(response.body),
    JSON.stringify(response.headers),
  ];
}
