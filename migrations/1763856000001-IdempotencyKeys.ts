import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyKeys1763856000001 implements MigrationInterface {
  name = 'IdempotencyKeys1763856000001';

  async up(q: QueryRunner): Promise<void> {
    // API.md §6. A key is claimed by inserting its row; the first request's answer is
    // stored on it for replay. `response_body` is json, not jsonb, so a replay keeps the
    // member order of the first answer byte for byte.
    await q.query(`
      CREATE TABLE idempotency_keys (
        principal varchar(200) NOT NULL,
        key varchar(255) NOT NULL,
        request_hash char(64) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('in_flight', 'done')),
        response_status smallint,
        response_body json,
        response_headers jsonb,
        claimed_at timestamptz(3) NOT NULL DEFAULT now(),
        expires_at timestamptz(3) NOT NULL,
        PRIMARY KEY (principal, key),
        CONSTRAINT idempotency_keys_done_has_response
          CHECK ((status = 'done') = (response_status IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_keys');
  }
}
