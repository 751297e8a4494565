import { MigrationInterface, QueryRunner } from 'typeorm';

/** The transactional outbox (API.md §10): one row per event, written with its change. */
export class Events1763856000002 implements MigrationInterface {
  name = 'Events1763856000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        id uuid PRIMARY KEY,
        type varchar(64) NOT NULL,
        resource_type varchar(32) NOT NULL,
        resource_id varchar(64) NOT NULL,
        payload json NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX events_created_at_id_idx ON events (created_at, id)`);
    await q.query(`CREATE INDEX events_type_created_at_id_idx ON events (type, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE events');
  }
}
