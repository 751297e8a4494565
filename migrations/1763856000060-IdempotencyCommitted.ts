import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `committed`: the request's own transaction committed (the idempotency interceptor marks
 * the key inside it), its answer is not stored yet. Such a claim is never taken over, so
 * a process that dies between the commit and storing the answer cannot have its request
 * run a second time.
 */
export class IdempotencyCommitted1763856000060 implements MigrationInterface {
  name = 'IdempotencyCommitted1763856000060';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE idempotency_keys
        DROP CONSTRAINT idempotency_keys_status_check,
        ADD CONSTRAINT idempotency_keys_status_check
          CHECK (status IN ('in_flight', 'committed', 'done'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE idempotency_keys SET status = 'in_flight' WHERE status = 'committed'`);
    await q.query(`
      ALTER TABLE idempotency_keys
        DROP CONSTRAINT idempotency_keys_status_check,
        ADD CONSTRAINT idempotency_keys_status_check CHECK (status IN ('in_flight', 'done'))`);
  }
}
