import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `enabled_at`: when the endpoint was created or last enabled. The workers fan an event
 * out to the endpoints that were enabled when it happened, not when they get to it, so
 * an endpoint gets no event from before it existed or while it was disabled, and one
 * disabled right after an event still has that event's delivery (as `dead`) to resend.
 */
export class WebhookEndpointEnabledAt1763856000070 implements MigrationInterface {
  name = 'WebhookEndpointEnabledAt1763856000070';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN enabled_at timestamptz(3)`);
    await q.query(`UPDATE webhook_endpoints SET enabled_at = created_at`);
    await q.query(
      `ALTER TABLE webhook_endpoints ALTER COLUMN enabled_at SET NOT NULL, ALTER COLUMN enabled_at SET DEFAULT now()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN enabled_at`);
  }
}
