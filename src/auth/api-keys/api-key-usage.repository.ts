import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Requests of one key in one hour (`hour` is the start of the hour, UTC). */
export interface UsageCount {
  apiKeyId: string;
  hour: Date;
  requests: number;
}

/** All SQL about `api_key_usage`. */
@Injectable()
export class ApiKeyUsageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Adds a batch of counts in one statement, whatever its size: each (key, hour) row is
   * created or incremented, so instances flushing at the same time add up instead of
   * overwriting each other. Counts of keys that do not exist are dropped, so one bad id
   * cannot fail the batch.
   */
  async add(counts: UsageCount[]): Promise<void> {
    if (counts.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO api_key_usage AS u (api_key_id, hour, requests)
       SELECT c.api_key_id, c.hour, c.requests
         FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[]) AS c (api_key_id, hour, requests)
        WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = c.api_key_id)
       ON CONFLICT (api_key_id, hour) DO UPDATE SET requests = u.requests + EXCLUDED.requests`,
      [
        counts.map((c) => c.apiKeyId),
        counts.map((c) => c.hour.toISOString()),
        counts.map((c) => String(c.requests)),
      ],
    );
  }

  /** Hours of `apiKeyId` with requests, from `from` (inclusive) to `to` (exclusive), oldest first. */
  async hourly(
    apiKeyId: string,
    from: Date,
    to: Date,
  ): Promise<{ hour: Date; requests: number }[]> {
    const rows: { hour: Date; requests: string }[] = await this.dataSource.query(
      `SELECT hour, requests FROM api_key_usage
        WHERE api_key_id = $1 AND hour >= $2 AND hour < $3
        ORDER BY hour`,
      [apiKeyId, from.toISOString(), to.toISOString()],
    );
    return rows.map((r) => ({ hour: new Date(r.hour), requests: Number(r.requests) }));
  }
}
