import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The node-postgres Pool behind a TypeORM data source (its postgres driver keeps it as
 * `master`); undefined before the data source is initialized.
 */
export function poolOf(dataSource: DataSource): Pool | undefined {
  if (!dataSource.isInitialized) return undefined;
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  return typeof pool?.totalCount === 'number' ? pool : undefined;
}
