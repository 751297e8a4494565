import { MigrationInterface, QueryRunner } from 'typeorm';

export class CatalogAndApiKeys1763769600000 implements MigrationInterface {
  name = 'CatalogAndApiKeys1763769600000';

  async up(q: QueryRunner): Promise<void> {
    // Secrets shared by every instance (cursor signing), generated once per database.
    await q.query(`
      CREATE TABLE app_secrets (
        name varchar(64) PRIMARY KEY,
        value text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`
      INSERT INTO app_secrets (name, value)
      VALUES ('cursor', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))`);

    await q.query(`
      CREATE TABLE products (
        id uuid PRIMARY KEY,
        sku varchar(64) NOT NULL,
        name varchar(200) NOT NULL,
        description varchar(5000),
        category varchar(100) NOT NULL,
        price_minor bigint NOT NULL CHECK (price_minor >= 0),
        price_scale smallint NOT NULL CHECK (price_scale BETWEEN 0 AND 4),
        price numeric(24, 6) GENERATED ALWAYS AS (price_minor::numeric / (10::numeric ^ price_scale)) STORED,
        currency char(3) NOT NULL,
        active boolean NOT NULL DEFAULT true,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        archived_at timestamptz(3),
        CONSTRAINT products_sku_unique UNIQUE (sku)
      )`);
    // One index per allowed sort, keyed like the keyset comparison (sort field, id), over
    // live rows only; category lists get their own.
    for (const column of ['created_at', 'updated_at', 'name', 'price', 'category']) {
      await q.query(
        `CREATE INDEX products_${column}_id_idx ON products (${column}, id) WHERE archived_at IS NULL`,
      );
    }
    await q.query(
      `CREATE INDEX products_category_created_at_id_idx ON products (category, created_at, id) WHERE archived_at IS NULL`,
    );

    await q.query(`
      CREATE TABLE inventory_items (
        sku varchar(64) PRIMARY KEY,
        product_id uuid NOT NULL UNIQUE REFERENCES products (id),
        quantity_on_hand integer NOT NULL DEFAULT 0 CHECK (quantity_on_hand >= 0),
        quantity_reserved integer NOT NULL DEFAULT 0 CHECK (quantity_reserved >= 0),
        reorder_level integer NOT NULL DEFAULT 0 CHECK (reorder_level >= 0),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        archived_at timestamptz(3),
        CONSTRAINT inventory_reserved_within_on_hand CHECK (quantity_reserved <= quantity_on_hand)
      )`);
    await q.query(
      `CREATE INDEX inventory_items_created_at_sku_idx ON inventory_items (created_at, sku) WHERE archived_at IS NULL`,
    );
    await q.query(`
      CREATE INDEX inventory_items_below_reorder_idx ON inventory_items (sku)
      WHERE archived_at IS NULL AND quantity_on_hand - quantity_reserved < reorder_level`);

    await q.query(`
      CREATE TABLE inventory_adjustments (
        id uuid PRIMARY KEY,
        sku varchar(64) NOT NULL REFERENCES inventory_items (sku),
        delta integer NOT NULL CHECK (delta <> 0),
        reason varchar(500) NOT NULL,
        quantity_on_hand integer NOT NULL,
        quantity_reserved integer NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX inventory_adjustments_sku_created_at_id_idx ON inventory_adjustments (sku, created_at, id)`,
    );

    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        name varchar(200) NOT NULL,
        prefix varchar(32) NOT NULL,
        key_hash char(64) NOT NULL UNIQUE,
        role varchar(32) NOT NULL,
        customer_id varchar(64),
        expires_at timestamptz(3),
        revoked_at timestamptz(3),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE api_keys');
    await q.query('DROP TABLE inventory_adjustments');
    await q.query('DROP TABLE inventory_items');
    await q.query('DROP TABLE products');
    await q.query('DROP TABLE app_secrets');
  }
}
