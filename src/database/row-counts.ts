import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { repeatInBackground } from '../common/repeat-in-background';
import { inTransaction } from './transaction';

/**
 * The number of rows of a counted table, as a scalar expression; `placeholder` is the
 * parameter that names the table (`$1`, `:name`). `row_count_of` (migration
 * RowCountMarks1763856000110) reads the catalog's counts, kept by triggers (migration
 * RowCounts1763856000100), or a marked table's mark and the rows past it. It runs in its
 * caller's snapshot, so within one statement it is exactly the number of live rows that
 * statement sees.
 */
export const rowCountOf = (placeholder: string): string => `(SELECT row_count_of(${placeholder}))`;

/** Each connection's rows of `row_counts` are folded about this often. */
const FOLD_EVERY_MS = 10 * 60 * 1000;

/** The marks of `row_count_marks` move forward about this often. */
const MARK_EVERY_MS = 5 * 1000;

/**
 * The upkeep of both kinds of count, in every process that opens the database.
 *
 * `fold` folds every connection's row of `row_counts` into shard 0. Counts grow one row
 * per table for each database connection that writes, and pools open new connections as
 * old ones idle out: unfolded, the rows a count sums would grow for as long as the
 * database runs. Rows a running write holds are skipped (SKIP LOCKED): a fold never waits
 * for a writer, and the next fold takes them. Folds of several instances do not disturb
 * one another: shard 0's rows are written in table order.
 *
 * `mark` moves the marks of `row_count_marks`, so the rows a count reads past its mark
 * are the last few seconds' inserts.
 */
@Injectable()
export class RowCounts implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RowCounts.name);
  private stops: (() => void)[] = [];

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.stops = [
      repeatInBackground(FOLD_EVERY_MS, 'folding row counts', this.logger, () => this.fold()),
      repeatInBackground(MARK_EVERY_MS, 'moving row count marks', this.logger, () => this.mark()),
    ];
  }

  onModuleDestroy(): void {
    for (const stop of this.stops) stop();
  }

  /** One fold; answers how many rows it folded. */
  async fold(): Promise<number> {
    const rows: { folded: string }[] = await this.dataSource.query(
      `WITH taken AS (
         DELETE FROM row_counts WHERE (relation, shard) IN (
           SELECT relation, shard FROM row_counts WHERE shard <> 0 FOR UPDATE SKIP LOCKED)
         RETURNING relation, n
       ), summed AS (
         INSERT INTO row_counts (relation, shard, n)
         SELECT relation, 0, sum(n) FROM taken GROUP BY relation ORDER BY relation
         ON CONFLICT (relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n
       )
       SELECT count(*) AS folded FROM taken`,
    );
    return Number(rows[0].folded);
  }

  /**
   * Moves every table's mark to the oldest transaction still running: the rows of the
   * transactions finished since the last mark are counted into `n`, once. The mark's row
   * is locked before the count's snapshot is taken, so a delete that took rows out of `n`
   * has committed by then and the count does not see them.
   */
  async mark(): Promise<void> {
    const marks: { relation: string }[] = await this.dataSource.query(
      'SELECT relation FROM row_count_marks',
    );
    for (const { relation } of marks) {
      const table = `"${relation.replaceAll('"', '""')}"`;
      await inTransaction(this.dataSource, async (manager) => {
        await manager.query('SELECT 1 FROM row_count_marks WHERE relation = $1 FOR UPDATE', [
          relation,
        ]);
        await manager.query(
          `UPDATE row_count_marks m
           SET n = m.n + (SELECT count(*) FROM ${table} t
                          WHERE t.created_xid >= m.below AND t.created_xid < x.xmin),
               below = x.xmin
           FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) x
           WHERE m.relation = $1 AND x.xmin > m.below`,
          [relation],
        );
      });
    }
  }
}
