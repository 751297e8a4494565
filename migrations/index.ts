import { CatalogAndApiKeys1763769600000 } from './1763769600000-CatalogAndApiKeys';
import { Orders1763856000000 } from './1763856000000-Orders';
import { IdempotencyKeys1763856000001 } from './1763856000001-IdempotencyKeys';
import { Events1763856000002 } from './1763856000002-Events';

/** Every migration, in order. Listed explicitly so the build, the CLI and tests agree. */
export const MIGRATIONS = [
  CatalogAndApiKeys1763769600000,
  Orders1763856000000,
  IdempotencyKeys1763856000001,
  Events1763856000002,
];
