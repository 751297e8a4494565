import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * The number of rows `row_counts` holds for a table, as a scalar subquery; `placeholder`
 * is the parameter that names the table (`$1`, `:name`). Triggers keep the count in the
 * transaction of each write (migration RowCounts), so within one statement it is exactly
 * the number of live rows that statement sees.
 */
export const rowCountOf = (placeholder: string): string =>
  `(SELECT COALESCE(sum(n), 0) FROM row_counts WHERE relation = ${placeholder})`;

/** Each connection's rows are folded about this often. */
const FOLD_EVERY_MS = 10 * 60 * 1000;

/**
 * Folds every connection's row of `row_counts` into shard 0. Counts grow one row per
 * table for each database connection that writes, and pools open new connections as
 * old ones idle out: unfolded, the rows a count sums would grow for as long as the
 * database runs. Rows a running write holds are skipped (SKIP LOCKED): a fold never waits
 * for a writer, and the next fold takes them. Folds of several instances do not disturb
 * one another: shard 0's rows are written in table order.
 */
@Injectable()
export class RowCountsFolder implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RowCounts');
  private timer?: NodeJS.Timeout;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.fold().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'folding row counts failed'),
      );
    }, FOLD_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
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
}
