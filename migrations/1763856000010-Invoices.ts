import { MigrationInterface, QueryRunner } from 'typeorm';

const STATUSES = `'draft', 'open', 'paid', 'void'`;

export class Invoices1763856000010 implements MigrationInterface {
  name = 'Invoices1763856000010';

  async up(q: QueryRunner): Promise<void> {
    // One row per year: the last invoice number handed out. Incremented with an upsert in
    // the creating transaction, so numbers are unique, and a rolled-back creation gives its
    // number back (no gaps).
    await q.query(`
      CREATE TABLE invoice_counters (
        year integer PRIMARY KEY CHECK (year BETWEEN 1970 AND 9999),
        last integer NOT NULL CHECK (last > 0)
      )`);

    await q.query(`
      CREATE TABLE invoices (
        id uuid PRIMARY KEY,
        number varchar(32) NOT NULL CONSTRAINT invoices_number_unique UNIQUE,
        order_id uuid NOT NULL REFERENCES orders (id),
        customer_id varchar(64) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN (${STATUSES})),
        currency char(3) NOT NULL,
        total_minor bigint NOT NULL CHECK (total_minor >= 0),
        total_scale smallint NOT NULL CHECK (total_scale BETWEEN 0 AND 4),
        total numeric GENERATED ALWAYS AS (total_minor::numeric / (10::numeric ^ total_scale)) STORED,
        due_date date NOT NULL,
        issued_at timestamptz(3),
        paid_at timestamptz(3),
        notes varchar(2000),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        -- issued when opened (a void invoice may or may not have been); paid_at iff paid
        CONSTRAINT invoices_issued_when_opened
          CHECK (status = 'void' OR (status = 'draft') = (issued_at IS NULL)),
        CONSTRAINT invoices_paid_at_when_paid CHECK ((status = 'paid') = (paid_at IS NOT NULL))
      )`);
    // An order has at most one invoice that is not void: billing it twice is refused.
    await q.query(
      `CREATE UNIQUE INDEX invoices_order_id_live_idx ON invoices (order_id) WHERE status <> 'void'`,
    );
    // One index per allowed sort, keyed like the keyset comparison (sort field, id), and
    // one per filter under the default sort (-createdAt), for customers' own lists too.
    for (const column of ['created_at', 'updated_at', 'number', 'due_date', 'total']) {
      await q.query(`CREATE INDEX invoices_${column}_id_idx ON invoices (${column}, id)`);
    }
    for (const column of ['status', 'order_id', 'customer_id']) {
      await q.query(
        `CREATE INDEX invoices_${column}_created_at_id_idx ON invoices (${column}, created_at, id)`,
      );
    }

    // The order's lines as they were invoiced.
    await q.query(`
      CREATE TABLE invoice_lines (
        invoice_id uuid NOT NULL REFERENCES invoices (id),
        line_no smallint NOT NULL CHECK (line_no BETWEEN 1 AND 100),
        sku varchar(64) NOT NULL,
        product_id uuid NOT NULL,
        name varchar(200) NOT NULL,
        quantity integer NOT NULL CHECK (quantity > 0),
        unit_price_minor bigint NOT NULL CHECK (unit_price_minor >= 0),
        line_total_minor bigint NOT NULL CHECK (line_total_minor >= 0),
        PRIMARY KEY (invoice_id, line_no)
      )`);

    // One row per status change, creation included (null → draft).
    await q.query(`
      CREATE TABLE invoice_status_history (
        invoice_id uuid NOT NULL REFERENCES invoices (id),
        invoice_version integer NOT NULL,
        from_status varchar(16) CHECK (from_status IN (${STATUSES})),
        to_status varchar(16) NOT NULL CHECK (to_status IN (${STATUSES})),
        at timestamptz(3) NOT NULL DEFAULT now(),
        actor varchar(200) NOT NULL,
        PRIMARY KEY (invoice_id, invoice_version)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE invoice_status_history');
    await q.query('DROP TABLE invoice_lines');
    await q.query('DROP TABLE invoices');
    await q.query('DROP TABLE invoice_counters');
  }
}
