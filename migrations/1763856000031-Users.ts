import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users of the built-in authorization server (API.md §3 `/users`): a unique, lowercased
 * email, a memory-hard password hash (never the password), and one or more roles.
 */
export class Users1763856000031 implements MigrationInterface {
  name = 'Users1763856000031';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        email varchar(254) NOT NULL,
        name varchar(200),
        password_hash varchar(255) NOT NULL,
        roles varchar(32)[] NOT NULL CHECK (cardinality(roles) BETWEEN 1 AND 6),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT users_email_unique UNIQUE (email),
        CONSTRAINT users_email_lowercase CHECK (email = lower(email))
      )`);
    for (const column of ['created_at', 'updated_at']) {
      await q.query(`CREATE INDEX users_${column}_id_idx ON users (${column}, id)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE users');
  }
}
