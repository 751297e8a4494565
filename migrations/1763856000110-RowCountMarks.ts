import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables an order writes, or that grow with the orders; never updated out of a list. */
const MARKED = ['orders', 'invoices', 'shipments', 'events'];

/**
 * Exact whole-list `total`s for the tables an order writes, at the price of an index entry
 * per row. The catalog's counts are kept by triggers (migration RowCounts1763856000100),
 * but a trigger's UPDATE on every order cost 15–25 % of orders a second
 * (docs/performance.md). Here a row only
 * records the transaction that inserted it, in `created_xid` (default
 * `pg_current_xact_id()`, 64 bits, never wraps), and `row_count_marks` says, per table:
 * `n` rows were inserted by transactions below `below`, every one of which had finished
 * when the mark was taken. A count is then `n` plus the rows at or above `below`, read
 * through a partial index on `created_xid`: RowCounts moves the marks forward every
 * few seconds, so those are the last seconds' rows. `row_count_of(table)` answers either
 * kind of count; a read in any snapshot gets exactly the rows that snapshot sees (the
 * function is STABLE: it runs in its caller's snapshot).
 *
 * Rows that were there before this migration have no `created_xid`: `n` starts as their
 * count, taken under the lock ADD COLUMN holds. Deleting rows (nothing in the API does)
 * takes them out of `n` by a trigger; TRUNCATE sets `n` to 0.
 *
 * ADD COLUMN without a default and a partial index on a column that is NULL everywhere
 * are quick, but the first count holds each table's lock until this migration commits:
 * reads and writes of the four tables wait, about 0.05 s per million rows
 * (docs/operations.md, "Migrations without downtime").
 */
export class RowCountMarks1763856000110 implements MigrationInterface {
  name = 'RowCountMarks1763856000110';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE row_count_marks (
        relation text PRIMARY KEY,
        n bigint NOT NULL,
        below xid8 NOT NULL
      )`);
    // The subquery reads the mark it updates: should a fold move the mark on meanwhile,
    // the UPDATE is evaluated again on the new one (EvalPlanQual).
    await q.query(`
      CREATE FUNCTION row_count_marks_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE row_count_marks m SET n = m.n - (
          SELECT count(*) FROM deleted d WHERE d.created_xid IS NULL OR d.created_xid < m.below)
        WHERE m.relation = TG_TABLE_NAME;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION row_count_marks_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE row_count_marks SET n = 0 WHERE relation = TG_TABLE_NAME;
        RETURN NULL;
      END $$`);
    for (const table of MARKED) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN created_xid xid8`);
      await q.query(
        `ALTER TABLE ${table} ALTER COLUMN created_xid SET DEFAULT pg_current_xact_id()`,
      );
      await q.query(
        `CREATE INDEX ${table}_created_xid_idx ON ${table} (created_xid) WHERE created_xid IS NOT NULL`,
      );
      await q.query(`
        CREATE TRIGGER ${table}_count_deleted AFTER DELETE ON ${table}
        REFERENCING OLD TABLE AS deleted
        FOR EACH STATEMENT EXECUTE FUNCTION row_count_marks_deleted()`);
      await q.query(`
        CREATE TRIGGER ${table}_count_truncated AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION row_count_marks_truncated()`);
      // Every row so far has no created_xid; every later one gets its transaction's id,
      // which is at least the oldest one running now.
      await q.query(
        `INSERT INTO row_count_marks (relation, n, below)
         SELECT $1, count(*), pg_snapshot_xmin(pg_current_snapshot()) FROM ${table}`,
        [table],
      );
    }
    await q.query(`
      CREATE FUNCTION row_count_of(counted text) RETURNS bigint
      LANGUAGE plpgsql STABLE AS $$
      DECLARE
        mark record;
        since bigint;
      BEGIN
        SELECT n, below INTO mark FROM row_count_marks WHERE relation = counted;
        IF NOT FOUND THEN
          RETURN (SELECT COALESCE(sum(n), 0) FROM row_counts WHERE relation = counted);
        END IF;
        EXECUTE format('SELECT count(*) FROM %I WHERE created_xid >= $1', counted)
          INTO since USING mark.below;
        RETURN mark.n + since;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION row_count_of(text)`);
    for (const table of MARKED) {
      await q.query(`DROP TRIGGER ${table}_count_deleted ON ${table}`);
      await q.query(`DROP TRIGGER ${table}_count_truncated ON ${table}`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN created_xid`);
    }
    await q.query(`DROP FUNCTION row_count_marks_deleted()`);
    await q.query(`DROP FUNCTION row_count_marks_truncated()`);
    await q.query(`DROP TABLE row_count_marks`);
  }
}
