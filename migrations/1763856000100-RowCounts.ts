import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tables whose whole-collection lists read their `total` from row_counts: the catalog,
 * a million rows and more, written rarely. Not the tables an order writes (orders, events,
 * and with them invoices and shipments): keeping their counts cost every order an UPDATE
 * of a row that all writers' rows share a page with, 15–25 % of orders a second in the
 * bench (docs/performance.md). RowCountMarks counts those.
 */
const COUNTED = [
  { table: 'products', liveOnly: true },
  { table: 'inventory_items', liveOnly: true },
];

/**
 * PL/pgSQL adding `delta` to the trigger's table's count, on the row of this connection.
 * Written out in each trigger function rather than called: a call costs a trigger more
 * than its UPDATE. Only this connection writes its row, so when the UPDATE finds none (a
 * fold took it) the INSERT meets no other writer but a fold, which ON CONFLICT covers.
 */
const addToCount = (delta: string) => `
  UPDATE row_counts SET n = n + ${delta}
  WHERE relation = TG_TABLE_NAME AND shard = pg_backend_pid();
  IF NOT FOUND THEN
    INSERT INTO row_counts (relation, shard, n) VALUES (TG_TABLE_NAME, pg_backend_pid(), ${delta})
    ON CONFLICT (relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n;
  END IF;`;

/**
 * Exact `total`s for lists without filters, without counting rows. A list's `total` is a
 * COUNT(*) of what its filters match (paginate.ts): with no filter that reads every row,
 * about 0.2 s for a page of a million products. Triggers now keep the number of live rows
 * of each counted table in `row_counts`, written by the statement that inserts, deletes or
 * archives them, so a read sees, in its one snapshot, the count of exactly the rows it
 * sees.
 *
 * Each connection adds to a row of its own (`shard` is its backend pid): writers never queue
 * on one another's row locks, so there is no lock order between tables to keep and no
 * deadlock to meet. RowCounts (src/database/row-counts.ts) folds those rows into
 * shard 0 from time to time, so the table stays as small as the number of connections.
 *
 * Statement-level triggers with transition tables: a COPY or a multi-row INSERT of a
 * million products adds its count once, not a million times. Archiving is a row-level
 * trigger on `archived_at` alone, so a stock move (an UPDATE of inventory_items that does
 * not set it) never fires it.
 *
 * Creating a trigger takes a lock that waits for the table's running writes and holds new
 * ones until this migration commits, so the first count, taken after it, misses none and
 * counts none twice: catalog writes wait for the counts, about 0.15 s per million products
 * (docs/operations.md, "Migrations without downtime").
 */
export class RowCounts1763856000100 implements MigrationInterface {
  name = 'RowCounts1763856000100';

  async up(q: QueryRunner): Promise<void> {
    // Updated in place on every counted write: room on the page keeps them HOT.
    await q.query(`
      CREATE TABLE row_counts (
        relation text NOT NULL,
        shard integer NOT NULL,
        n bigint NOT NULL,
        CONSTRAINT row_counts_pkey PRIMARY KEY (relation, shard)
      ) WITH (fillfactor = 50)`);
    // TG_ARGV[0] = 'live': only rows with archived_at IS NULL count. Each branch is planned
    // only when it runs, so tables without the column never meet the first.
    for (const [name, sign, rows] of [
      ['row_counts_inserted', '', 'inserted'],
      ['row_counts_deleted', '-', 'deleted'],
    ]) {
      await q.query(`
        CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE delta bigint;
        BEGIN
          IF TG_ARGV[0] = 'live' THEN
            SELECT count(*) INTO delta FROM ${rows} WHERE archived_at IS NULL;
          ELSE
            SELECT count(*) INTO delta FROM ${rows};
          END IF;
          IF delta > 0 THEN ${addToCount(`${sign}delta`)} END IF;
          RETURN NULL;
        END $$`);
    }
    await q.query(`
      CREATE FUNCTION row_counts_archived() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addToCount('CASE WHEN NEW.archived_at IS NULL THEN 1 ELSE -1 END')}
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION row_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM row_counts WHERE relation = TG_TABLE_NAME;
        RETURN NULL;
      END $$`);

    for (const { table, liveOnly } of COUNTED) {
      const argument = liveOnly ? `'live'` : '';
      await q.query(`
        CREATE TRIGGER ${table}_count_inserted AFTER INSERT ON ${table}
        REFERENCING NEW TABLE AS inserted
        FOR EACH STATEMENT EXECUTE FUNCTION row_counts_inserted(${argument})`);
      await q.query(`
        CREATE TRIGGER ${table}_count_deleted AFTER DELETE ON ${table}
        REFERENCING OLD TABLE AS deleted
        FOR EACH STATEMENT EXECUTE FUNCTION row_counts_deleted(${argument})`);
      await q.query(`
        CREATE TRIGGER ${table}_count_truncated AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION row_counts_truncated()`);
      if (liveOnly) {
        await q.query(`
          CREATE TRIGGER ${table}_count_archived AFTER UPDATE OF archived_at ON ${table}
          FOR EACH ROW WHEN ((OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL))
          EXECUTE FUNCTION row_counts_archived()`);
      }
      // after the triggers: their lock has drained the table's writers (see above)
      await q.query(
        `INSERT INTO row_counts (relation, shard, n)
         SELECT $1, 0, count(*) FROM ${table}${liveOnly ? ' WHERE archived_at IS NULL' : ''}`,
        [table],
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table } of COUNTED) {
      for (const event of ['inserted', 'deleted', 'truncated', 'archived']) {
        await q.query(`DROP TRIGGER IF EXISTS ${table}_count_${event} ON ${table}`);
      }
    }
    for (const name of [
      'row_counts_inserted',
      'row_counts_deleted',
      'row_counts_archived',
      'row_counts_truncated',
    ]) {
      await q.query(`DROP FUNCTION ${name}()`);
    }
    await q.query(`DROP TABLE row_counts`);
  }
}
