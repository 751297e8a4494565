import type { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { DEFAULT_POOL_SIZE } from '../config/environment';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface DatabaseTarget {
  url: string;
  /** PGlite is one session: its pool must hold a single connection. */
  embedded: boolean;
}

/**
 * PGlite is one session behind every connection that reaches it, and it outlives them: a
 * named prepared statement one connection made is still there when another connection (a
 * new pool client, a second data source) prepares the same name, which PostgreSQL refuses.
 * So the hot paths' named statements (prepared-statement.ts) are for PostgreSQL only; the
 * flag rides in `extra`, which node-postgres ignores.
 */
const NAMED_STATEMENTS = 'namedStatements';

export function allowsNamedStatements(dataSource: DataSource): boolean {
  const extra = dataSource.options.extra as Record<string, unknown> | undefined;
  return extra?.[NAMED_STATEMENTS] !== false;
}

export function dataSourceOptions(
  target: DatabaseTarget,
  migrationsRun: boolean,
  poolSize = DEFAULT_POOL_SIZE,
): DataSourceOptions {
  return {
    type: 'postgres',
    url: target.url,
    namingStrategy: new SnakeNamingStrategy(),
    migrations: MIGRATIONS,
    migrationsRun,
    migrationsTransactionMode: 'each',
    poolSize: target.embedded ? 1 : poolSize,
    extra: { connectionTimeoutMillis: 5000, [NAMED_STATEMENTS]: !target.embedded },
  };
}
