import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { DEFAULT_POOL_SIZE } from '../config/environment';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface DatabaseTarget {
  url: string;
  /** PGlite is one session: its pool must hold a single connection. */
  embedded: boolean;
}

/**
 * Whether the hot paths' statements are prepared under their names (prepared-statement.ts).
 * Not on PGlite: it is one session behind every connection that reaches it, and it outlives
 * them, so a named statement one connection made is still there when another connection (a
 * new pool client, a second data source) prepares the same name, which PostgreSQL refuses.
 * Not when DATABASE_PREPARED_STATEMENTS is off either: a pooler in transaction mode that
 * does not track prepared statements hands a transaction whichever server connection is
 * free, where the name may be missing or already taken. The flag rides in `extra`, which
 * node-postgres ignores.
 */
const NAMED_STATEMENTS = 'namedStatements';

export function allowsNamedStatements(dataSource: DataSource): boolean {
  const extra = dataSource.options.extra as Record<string, unknown> | undefined;
  return extra?.[NAMED_STATEMENTS] !== false;
}

/**
 * How a process reaches the database. `queryTimeoutMs` bounds how long a query may go
 * unanswered: a database that stops answering without closing its connections (a network
 * partition, a frozen host) fails the request with 503 after it rather than leaving the
 * request, and a graceful shutdown waiting on it, hanging (docs/operations.md). Omitted,
 * as for migrations, whose index builds may take as long as they take, there is none.
 * TCP keepalive lets the pool drop a connection whose peer is gone for good.
 */
export function dataSourceOptions(
  target: DatabaseTarget,
  {
    poolSize = DEFAULT_POOL_SIZE,
    queryTimeoutMs,
    preparedStatements = true,
  }: { poolSize?: number; queryTimeoutMs?: number; preparedStatements?: boolean } = {},
): DataSourceOptions {
  return {
    type: 'postgres',
    url: target.url,
    namingStrategy: new SnakeNamingStrategy(),
    migrations: MIGRATIONS,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    poolSize: target.embedded ? 1 : poolSize,
    extra: {
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      // statements of a transaction sent together (pipeline.ts); the embedded database
      // runs inside this process, with no round trip to save
      pipeline: !target.embedded,
      ...(queryTimeoutMs !== undefined ? { query_timeout: queryTimeoutMs } : {}),
      [NAMED_STATEMENTS]: preparedStatements && !target.embedded,
    },
  };
}

/** Applies pending migrations on a data source of their own, without a query time limit. */
export async function applyMigrations(target: DatabaseTarget): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(target, { poolSize: 1 }));
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
