import { MigrationInterface, QueryRunner } from 'typeorm';

const STATUSES = `'pending', 'confirmed', 'shipped', 'delivered', 'cancelled'`;

export class Orders1763856000000 implements MigrationInterface {
  name = 'Orders1763856000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE orders (
        id uuid PRIMARY KEY,
        customer_id varchar(64) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN (${STATUSES})),
        currency char(3) NOT NULL,
        total_minor bigint NOT NULL CHECK (total_minor >= 0),
        total_scale smallint NOT NULL CHECK (total_scale BETWEEN 0 AND 4),
        total numeric GENERATED ALWAYS AS (total_minor::numeric / (10::numeric ^ total_scale)) STORED,
        shipping_address jsonb NOT NULL,
        notes varchar(2000),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // One index per allowed sort, keyed like the keyset comparison (sort field, id), and
    // one per filter under the default sort (-createdAt), for customers' own lists too.
    for (const column of ['created_at', 'updated_at', 'total', 'status']) {
      await q.query(`CREATE INDEX orders_${column}_id_idx ON orders (${column}, id)`);
    }
    await q.query(
      `CREATE INDEX orders_status_created_at_id_idx ON orders (status, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX orders_customer_id_created_at_id_idx ON orders (customer_id, created_at, id)`,
    );

    // Lines snapshot the product at creation: later catalog changes never touch them.
    await q.query(`
      CREATE TABLE order_lines (
        order_id uuid NOT NULL REFERENCES orders (id),
        line_no smallint NOT NULL CHECK (line_no BETWEEN 1 AND 100),
        sku varchar(64) NOT NULL,
        product_id uuid NOT NULL REFERENCES products (id),
        name varchar(200) NOT NULL,
        quantity integer NOT NULL CHECK (quantity > 0),
        unit_price_minor bigint NOT NULL CHECK (unit_price_minor >= 0),
        line_total_minor bigint NOT NULL CHECK (line_total_minor >= 0),
        PRIMARY KEY (order_id, line_no),
        CONSTRAINT order_lines_sku_once UNIQUE (order_id, sku)
      )`);

    // One row per status change; `order_version` is the order's version that change
    // produced, so entries sort in the order they happened.
    await q.query(`
      CREATE TABLE order_status_history (
        order_id uuid NOT NULL REFERENCES orders (id),
        order_version integer NOT NULL,
        from_status varchar(16) CHECK (from_status IN (${STATUSES})),
        to_status varchar(16) NOT NULL CHECK (to_status IN (${STATUSES})),
        at timestamptz(3) NOT NULL DEFAULT now(),
        actor varchar(200) NOT NULL,
        PRIMARY KEY (order_id, order_version)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE order_status_history');
    await q.query('DROP TABLE order_lines');
    await q.query('DROP TABLE orders');
  }
}
