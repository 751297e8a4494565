import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JWK } from 'jose';
import { DataSource } from 'typeorm';

/** A private signing key as oidc-provider takes it: a JWK with `kid`, `alg` and `use`. */
export type PrivateSigningJwk = JWK & { kid: string; alg: string; use: 'sig' };

/**
 * All SQL about the authorization server's secrets: its signing keys
 * (`oauth_signing_keys`) and the key that signs its cookies (`app_secrets`).
 */
@Injectable()
export class SigningKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The keys in use, newest first: the first signs, all of them verify. */
  async findActive(): Promise<PrivateSigningJwk[]> {
    const rows: { private_jwk: PrivateSigningJwk }[] = await this.dataSource.query(
      `SELECT private_jwk FROM oauth_signing_keys
       WHERE retired_at IS NULL ORDER BY created_at DESC, kid`,
    );
    return rows.map((row) => row.private_jwk);
  }

  /**
   * Stores the key `generate` makes unless a usable one exists. Instances that start
   * together queue on an advisory lock, so exactly one key is made.
   */
  async ensureOne(generate: () => Promise<PrivateSigningJwk>): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('oauth_signing_keys'))`);
      const [{ count }]: { count: string }[] = await manager.query(
        `SELECT count(*) AS count FROM oauth_signing_keys WHERE retired_at IS NULL`,
      );
      if (Number(count) > 0) return;
      const jwk = await generate();
      await manager.query(
        `INSERT INTO oauth_signing_keys (kid, alg, private_jwk) VALUES ($1, $2, $3)`,
        [jwk.kid, jwk.alg, JSON.stringify(jwk)],
      );
    });
  }

  /** Signs the server's cookies; made by the migration, so every instance has the same. */
  async findCookieSecret(): Promise<string> {
    const rows: { value: string }[] = await this.dataSource.query(
      `SELECT value FROM app_secrets WHERE name = 'oauth_cookies'`,
    );
    if (!rows[0]) {
      throw new Error('app_secrets has no oauth_cookies secret: are migrations applied?');
    }
    return rows[0].value;
  }
}
