import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * PostgreSQL without a server to install: PGlite (Postgres compiled to WebAssembly)
 * behind pglite-socket, so the app reaches it with the ordinary `pg` driver, the same
 * SQL and the same migrations as production. PGlite is one session, hence the server
 * allows one connection and the app's pool holds one (DESIGN.md §2). For development,
 * demos and tests without DATABASE_URL; never for production.
 *
 * `dataDir` "memory" keeps nothing; any other value is a folder that keeps the data.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const inMemory = dataDir === 'memory';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(inMemory ? undefined : dataDir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgres://postgres@${address}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
