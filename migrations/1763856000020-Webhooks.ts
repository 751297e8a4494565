import { MigrationInterface, QueryRunner } from 'typeorm';

const DELIVERY_STATUSES = `'pending', 'succeeded', 'failed', 'dead'`;

/**
 * Webhooks (API.md §10): subscribers, one delivery per event × subscribed endpoint, and
 * every attempt of it. Workers find new events by `events.fanned_out_at IS NULL` rather
 * than a (created_at, id) cursor: `created_at` is taken when the row is inserted, so a
 * long transaction can commit an event older than one a cursor has already passed.
 */
export class Webhooks1763856000020 implements MigrationInterface {
  name = 'Webhooks1763856000020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD COLUMN fanned_out_at timestamptz(3)`);
    // There was no endpoint to deliver to before this migration.
    await q.query(`UPDATE events SET fanned_out_at = created_at`);
    await q.query(
      `CREATE INDEX events_not_fanned_out_idx ON events (created_at, id) WHERE fanned_out_at IS NULL`,
    );

    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        url varchar(2048) NOT NULL,
        description varchar(500),
        event_types varchar(64)[] NOT NULL CHECK (cardinality(event_types) > 0),
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason varchar(16) CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
        disabled_at timestamptz(3),
        secret varchar(100) NOT NULL,
        previous_secret varchar(100),
        previous_secret_expires_at timestamptz(3),
        failing_since timestamptz(3),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT webhook_endpoints_disabled_has_reason
          CHECK (enabled = (disabled_reason IS NULL))
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoints_created_at_id_idx ON webhook_endpoints (created_at, id)`,
    );

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES events (id),
        event_type varchar(64) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN (${DELIVERY_STATUSES})),
        attempt_count integer NOT NULL DEFAULT 0,
        -- attempts made before the current retry schedule began (a manual retry restarts it)
        schedule_start integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        locked_until timestamptz(3),
        lease_token uuid,
        last_attempt_at timestamptz(3),
        last_status_code smallint,
        last_error varchar(500),
        last_latency_ms integer,
        last_response_excerpt varchar(1024),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_once UNIQUE (endpoint_id, event_id),
        CONSTRAINT webhook_deliveries_scheduled
          CHECK ((status IN ('pending', 'failed')) = (next_attempt_at IS NOT NULL))
      )`);
    // What the workers claim: due deliveries, oldest first.
    await q.query(`
      CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id)
      WHERE status IN ('pending', 'failed')`);
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_created_at_id_idx ON webhook_deliveries (endpoint_id, created_at, id)`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_event_id_idx ON webhook_deliveries (event_id)`);

    await q.query(`
      CREATE TABLE webhook_attempts (
        id uuid PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt_no integer NOT NULL CHECK (attempt_no > 0),
        at timestamptz(3) NOT NULL,
        succeeded boolean NOT NULL,
        status_code smallint,
        error varchar(500),
        latency_ms integer NOT NULL CHECK (latency_ms >= 0),
        response_excerpt varchar(1024),
        CONSTRAINT webhook_attempts_once UNIQUE (delivery_id, attempt_no)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_attempts');
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhook_endpoints');
    await q.query('DROP INDEX events_not_fanned_out_idx');
    await q.query('ALTER TABLE events DROP COLUMN fanned_out_at');
  }
}
