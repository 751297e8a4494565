import { createHash } from 'node:crypto';
import {
  type DataSource,
  type EntityManager,
  InstanceChecker,
  type ObjectLiteral,
  type Repository,
} from 'typeorm';
import { allowsNamedStatements } from './data-source-options';

type Queryable = DataSource | EntityManager | Repository<ObjectLiteral>;

/**
 * A statement of a hot path that PostgreSQL parses and plans once per connection instead
 * of on every run: node-postgres prepares it under its name the first time a connection
 * runs it and afterwards sends only the parameters. On the order path this took about a
 * third off PostgreSQL's CPU per order, and PostgreSQL shares the machine's cores with the
 * API. The name comes from the text, so two statements never share a name (node-postgres
 * refuses a name reused for another text).
 *
 * TypeORM hands the query to node-postgres untouched, and node-postgres takes a
 * `{ name, text }` object in place of the text; this class is the one place relying on it.
 * Behind PgBouncer in transaction mode this needs `max_prepared_statements` (PgBouncer
 * 1.21 or later; docs/operations.md). On the embedded database it runs as plain text
 * (data-source-options.ts says why).
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

  /** Runs it as `manager.query` would run the text: the same results and errors. */
  run<T>(on: Queryable, parameters: unknown[]): Promise<T> {
    const query = allowsNamedStatements(dataSourceOf(on)) ? this.config : this.text;
    return on.query<T>(query as unknown as string, parameters);
  }
}

function dataSourceOf(on: Queryable): DataSource {
  if (InstanceChecker.isDataSource(on)) return on;
  return 'connection' in on ? on.connection : on.manager.connection;
}
