import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { applyMigrations, DatabaseTarget } from '../../src/database/data-source-options';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';

/** The migrated template every test file's database is cloned from (PostgreSQL only). */
export const TEMPLATE_ENV = 'TEST_TEMPLATE_DATABASE';

export interface TestDatabase {
  target: DatabaseTarget;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Global setup on PostgreSQL: a fresh template database with every migration applied. */
export async function createTemplate(url: string): Promise<string> {
  const name = `coa_template_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin(url, (c) => c.query(`CREATE DATABASE ${name}`));
  await applyMigrations({ url: withDatabase(url, name), embedded: false });
  return name;
}

export async function dropDatabase(url: string, name: string): Promise<void> {
  await admin(url, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * A database of the test file's own: on PostgreSQL (DATABASE_URL) a clone of the
 * migrated template, so files are isolated and run in parallel; otherwise an in-memory
 * embedded PGlite that the app migrates at boot.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL;
  const template = process.env[TEMPLATE_ENV];
  if (url && template) {
    const name = `coa_test_${randomBytes(6).toString('hex')}`;
    await admin(url, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
    return {
      target: { url: withDatabase(url, name), embedded: false },
      drop: () => dropDatabase(url, name),
    };
  }
  const embedded = await startEmbeddedPostgres('memory');
  return { target: { url: embedded.url, embedded: true }, drop: () => embedded.stop() };
}
