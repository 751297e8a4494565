import { MigrationInterface, QueryRunner } from 'typeorm';

const STATUSES = `'label_created', 'in_transit', 'delivered', 'cancelled'`;

export class Shipments1763856000011 implements MigrationInterface {
  name = 'Shipments1763856000011';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE shipments (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders (id),
        -- the order's, copied so a customer's reads are scoped without a join
        customer_id varchar(64) NOT NULL,
        carrier varchar(100) NOT NULL,
        tracking_number varchar(100),
        status varchar(16) NOT NULL CHECK (status IN (${STATUSES})),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // An order is shipped by at most one shipment at a time; a cancelled one frees it.
    await q.query(
      `CREATE UNIQUE INDEX shipments_order_id_live_idx ON shipments (order_id) WHERE status <> 'cancelled'`,
    );
    for (const column of ['created_at', 'updated_at', 'status']) {
      await q.query(`CREATE INDEX shipments_${column}_id_idx ON shipments (${column}, id)`);
    }
    for (const column of ['status', 'order_id', 'customer_id']) {
      await q.query(
        `CREATE INDEX shipments_${column}_created_at_id_idx ON shipments (${column}, created_at, id)`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE shipments');
  }
}
