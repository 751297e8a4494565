import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AdapterPayload } from 'oidc-provider';
import { DataSource } from 'typeorm';

/**
 * All SQL about the authorization server's protocol state (`oauth_payloads`): sessions,
 * interactions, authorization codes, refresh tokens, grants... one row per model and id,
 * shared by every instance. Expired rows are invisible, and purged now and then.
 */
@Injectable()
export class OAuthPayloadsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async upsert(
    model: string,
    id: string,
    payload: AdapterPayload,
    expiresInSeconds: number | undefined,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_payloads (model, id, payload, grant_id, uid, user_code, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6,
               CASE WHEN $7::integer IS NULL THEN NULL
                    ELSE clock_timestamp() + make_interval(secs => $7::integer) END)
       ON CONFLICT (model, id) DO UPDATE SET
         payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
         user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
      [
        model,
        id,
        JSON.stringify(payload),
        payload.grantId ?? null,
        payload.uid ?? null,
        payload.userCode ?? null,
        expiresInSeconds ?? null,
      ],
    );
  }

  find(model: string, id: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(model, 'id = $2', id);
  }

  findByUid(model: string, uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(model, 'uid = $2', uid);
  }

  findByUserCode(model: string, userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(model, 'user_code = $2', userCode);
  }

  async consume(model: string, id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE oauth_payloads SET consumed_at = clock_timestamp() WHERE model = $1 AND id = $2`,
      [model, id],
    );
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_payloads WHERE model = $1 AND id = $2`, [
      model,
      id,
    ]);
  }

  /** Every artifact of a grant, whatever its model (revocation, code reuse). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_payloads WHERE grant_id = $1`, [grantId]);
  }

  /** Every artifact issued to a client (its deletion). */
  async revokeByClientId(clientId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_payloads WHERE payload->>'clientId' = $1`, [
      clientId,
    ]);
  }

  /** Deletes the rows that expired a while ago. */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM oauth_payloads WHERE expires_at < clock_timestamp() - interval '1 hour'`,
    );
  }

  private async findWhere(
    model: string,
    condition: string,
    value: string,
  ): Promise<AdapterPayload | undefined> {
    const rows: { payload: AdapterPayload; consumed: number | null }[] =
      await this.dataSource.query(
        `SELECT payload, floor(extract(epoch FROM consumed_at))::integer AS consumed
         FROM oauth_payloads
         WHERE model = $1 AND ${condition}
           AND (expires_at IS NULL OR expires_at > clock_timestamp())`,
        [model, value],
      );
    const row = rows[0];
    if (!row) return undefined;
    return row.consumed === null ? row.payload : { ...row.payload, consumed: row.consumed };
  }
}
