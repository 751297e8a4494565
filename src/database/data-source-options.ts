import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { DEFAULT_POOL_SIZE } from '../config/environment';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface DatabaseTarget {
  url: string;
  /** PGlite is one session: its pool must hold a single connection. */
  embedded: boolean;
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
    extra: { connectionTimeoutMillis: 5000 },
  };
}
