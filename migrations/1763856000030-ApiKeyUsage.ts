import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-key request counts by hour (API.md §8, `GET /api-keys/{id}/usage`), written in
 * batches by every instance with an upsert on (api_key_id, hour); and the indexes the
 * /api-keys collection sorts by, over live (unrevoked) keys.
 */
export class ApiKeyUsage1763856000030 implements MigrationInterface {
  name = 'ApiKeyUsage1763856000030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_key_usage (
        api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        hour timestamptz(3) NOT NULL,
        requests bigint NOT NULL CHECK (requests > 0),
        PRIMARY KEY (api_key_id, hour),
        CONSTRAINT api_key_usage_whole_hour CHECK (date_trunc('hour', hour) = hour)
      )`);
    for (const column of ['created_at', 'updated_at', 'name']) {
      await q.query(
        `CREATE INDEX api_keys_${column}_id_idx ON api_keys (${column}, id) WHERE revoked_at IS NULL`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const column of ['created_at', 'updated_at', 'name']) {
      await q.query(`DROP INDEX api_keys_${column}_id_idx`);
    }
    await q.query('DROP TABLE api_key_usage');
  }
}
