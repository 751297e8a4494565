import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { DatabaseTarget } from '../../src/database/data-source-options';
import { EMBEDDED_EXTENSIONS } from '../../src/database/embedded-postgres';
import { createTestDatabase, TEMPLATE_ENV, TestDatabase } from './test-database';
import { startTestAppOn, TestApp } from './test-app';

export interface SharedDatabaseApps {
  /** the instances, in the order they were started */
  apps: TestApp[];
  /** stops every app, then drops the database */
  close(): Promise<void>;
}

/**
 * Several instances of the app on one database, as behind a load balancer (DESIGN.md §6):
 * each `startTestApp` has a database of its own, these share one. On PostgreSQL it is a
 * clone of the migrated template; without DATABASE_URL an embedded PGlite whose socket
 * server takes one connection per app (its query queue keeps each transaction to one
 * connection). The apps start one after the other, so migrations run once.
 *
 * Passport keeps strategies in a process-wide registry: the API-key strategy (with its
 * verifier and cache) of the app started last authenticates the requests of every app in
 * this process. Tests about per-instance state should look at each app's own providers
 * (`apps[i].app.get(...)`) as well as at HTTP answers.
 */
export async function startSharedDatabaseApps(
  count: number,
  env: Record<string, string> | Record<string, string>[] = {},
): Promise<SharedDatabaseApps> {
  const database = await sharedDatabase(count);
  const apps: TestApp[] = [];
  const close = async () => {
    for (const api of apps.reverse()) await api.close();
    await database.drop();
  };
  try {
    for (let i = 0; i < count; i++) {
      apps.push(await startTestAppOn(database.target, Array.isArray(env) ? env[i] : env));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { apps: [...apps], close };
}

async function sharedDatabase(connections: number): Promise<TestDatabase> {
  if (process.env.DATABASE_URL && process.env[TEMPLATE_ENV]) return createTestDatabase();
  const db = await PGlite.create({ extensions: EMBEDDED_EXTENSIONS });
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: 0,
    maxConnections: connections,
  });
  await server.start();
  const target: DatabaseTarget = {
    url: `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
    embedded: true,
  };
  return {
    target,
    async drop() {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * A database of the test file's own that outlives the apps (or worker processes) started
 * on it with `startTestAppOn(database.target)`: for restarts, where one instance is
 * closed before the next starts on the same data. `connections` is how many may be
 * connected at once (it matters for the embedded database only). Call `drop()` last.
 */
export function createSharedDatabase(connections = 1): Promise<TestDatabase> {
  return sharedDatabase(connections);
}
