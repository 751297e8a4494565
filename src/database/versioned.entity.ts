import { CreateDateColumn, UpdateDateColumn, VersionColumn } from 'typeorm';

/**
 * The columns every resource has (API.md §3): `version` grows by one with each change
 * (TypeORM bumps it and `updated_at` on every UPDATE it builds); millisecond timestamps
 * so they round-trip exactly through JSON and keyset cursors.
 */
export abstract class VersionedEntity {
  @VersionColumn() version: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
