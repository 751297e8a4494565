import { CatalogAndApiKeys1763769600000 } from './1763769600000-CatalogAndApiKeys';

/** Every migration, in order. Listed explicitly so the build, the CLI and tests agree. */
export const MIGRATIONS = [CatalogAndApiKeys1763769600000];
