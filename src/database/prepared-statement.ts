import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryResult } from 'pg';
import {
  type DataSource,
  type EntityManager,
  InstanceChecker,
  type ObjectLiteral,
  QueryFailedError,
  type QueryRunner,
  type Repository,
} from 'typeorm';
import { allowsNamedStatements } from './data-source-options';
import { clientOf } from './pipeline';
import { poolOf } from './pool';

type Queryable = DataSource | EntityManager | Repository<ObjectLiteral>;

/**
 * A statement of a hot path that PostgreSQL parses and plans once per connection instead
 * of on every run: node-postgres prepares it under its name the first time a connection
 * runs it and afterwards sends only the parameters. On the order path this took about a
 * third off PostgreSQL's CPU per order, and PostgreSQL shares the machine's cores with the
 * API. The name comes from the text, so two statements never share a name (node-postgres
 * refuses a name reused for another text).
 *
 * Inside a transaction it runs through TypeORM's query runner, which hands node-postgres
 * the `{ name, text }` object untouched. Outside one it runs on the pool itself: TypeORM's
 * `query` builds a query runner, an entity manager and before/after events around each
 * statement, which cost the API more CPU than a GET by id's own work
 * (docs/performance.md); results and errors are shaped as TypeORM shapes them. This class
 * is the one place relying on either. Behind PgBouncer in transaction mode this needs
 * `max_prepared_statements` (PgBouncer 1.21 or later), or DATABASE_PREPARED_STATEMENTS
 * off (docs/operations.md). On the embedded database, and with that setting off, it runs
 * as plain text through TypeORM (data-source-options.ts says why).
 */
export class PreparedStatement {
  private readonly config: { name: string; text: string };

  constructor(readonly text: string) {
    const digest = createHash('sha256').update(text).digest('hex');
    this.config = { name: `coa_${digest.slice(0, 24)}`, text };
  }

  get name(): string {
    return this.config.name;
  }

  /**
   * Runs it as `manager.query` would run the text: the same results and errors. Inside a
   * transaction that pipeline.ts knows, it is handed to the connection before this
   * returns, so statements sent together go out in the order they are written.
   */
  run<T>(on: Queryable, parameters: unknown[]): Promise<T> {
    const dataSource = dataSourceOf(on);
    if (!allowsNamedStatements(dataSource)) return on.query<T>(this.text, parameters);
    const runner = queryRunnerOf(on);
    if (runner) {
      const client = clientOf(runner.manager);
      if (!client) return on.query<T>(this.config as unknown as string, parameters);
      return this.runOn<T>(client, parameters);
    }
    const pool = poolOf(dataSource);
    if (!pool) return on.query<T>(this.config as unknown as string, parameters);
    return this.runOnPool<T>(pool, parameters);
  }

  private async runOnPool<T>(pool: Pool, parameters: unknown[]): Promise<T> {
    // as TypeORM does: an error while connecting goes out as it is, one of the query
    // wrapped in QueryFailedError (problem-mapping.ts tells them apart)
    const client = await pool.connect();
    try {
      return await this.runOn<T>(client, parameters);
    } finally {
      client.release();
    }
  }

  private async runOn<T>(client: PoolClient, parameters: unknown[]): Promise<T> {
    let result: QueryResult;
    try {
      result = await client.query(this.config, parameters);
    } catch (error) {
      throw new QueryFailedError(this.text, parameters, error as Error);
    }
    // TypeORM's `query` answers an UPDATE or a DELETE with [rows, affected], others with rows
    const updated = result.command === 'UPDATE' || result.command === 'DELETE';
    return (updated ? [result.rows, result.rowCount] : result.rows) as T;
  }
}

function dataSourceOf(on: Queryable): DataSource {
  if (InstanceChecker.isDataSource(on)) return on;
  return 'connection' in on ? on.connection : on.manager.connection;
}

/** The query runner of a transaction's manager; undefined for a data source's own. */
function queryRunnerOf(on: Queryable): QueryRunner | undefined {
  if (InstanceChecker.isDataSource(on)) return undefined;
  return ('connection' in on ? on : on.manager).queryRunner;
}
