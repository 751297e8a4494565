import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** The extensions the migrations create, which PGlite loads only when it is given them. */
export const EMBEDDED_EXTENSIONS = { pg_trgm };

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
  const db = await PGlite.create(inMemory ? undefined : dataDir, {
    extensions: EMBEDDED_EXTENSIONS,
  });
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
