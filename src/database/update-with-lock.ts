import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { PreconditionFailedProblem } from '../http/problems/problem';

export interface LockedUpdate<E> {
  /** qualified key column, e.g. `p.id` */
  keyColumn: string;
  key: string;
  /** versions `If-Match` accepts; undefined: no precondition */
  expectedVersions?: number[];
  /** false for tables without `archived_at` (orders, invoices); default true */
  archivable?: boolean;
  /** the change to write, computed from the locked current row; may throw a Problem */
  change: (current: E) => Partial<E> | Promise<Partial<E>>;
}

/** A row before and after a guarded write; the same object when nothing changed. */
export interface Updated<E> {
  previous: E;
  current: E;
  /** false for a write that changed nothing: the version stayed (API.md §3) */
  changed: boolean;
}

/**
 * Lock, check, update in one transaction (STYLE.md: updateWithLock): the row is read
 * `FOR UPDATE`, `If-Match` is compared with its version, the rule computes the change,
 * and the UPDATE bumps `version` and `updated_at`. Returns the row before and after, so
 * a caller can tell a change from none (to record an event, or a ledger entry) without
 * keeping the row it was shown; null when no live row has the key (any row, for tables
 * that are never archived). Concurrent writers queue on the row lock, so none is lost.
 */
export async function updateWithLock<E extends ObjectLiteral & { version: number }>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  alias: string,
  update: LockedUpdate<E>,
): Promise<Updated<E> | null> {
  const previous = await lockForWrite(manager, entity, alias, update);
  if (!previous) return null;
  const change = await update.change(previous);
  // A write that changes nothing is no change: the version stays (API.md §3).
  if (
    Object.entries(change).every(([k, v]) => sameValue((previous as Record<string, unknown>)[k], v))
  ) {
    return { previous, current: previous, changed: false };
  }
  const key = { key: update.key };
  await manager
    .createQueryBuilder()
    .update(entity)
    .set(change)
    .where(`${update.keyColumn.split('.')[1]} = :key`, key)
    .execute();
  const current = await manager
    .createQueryBuilder(entity, alias)
    .where(`${update.keyColumn} = :key`, key)
    .getOneOrFail();
  return { previous, current, changed: true };
}

/** Which row to lock, and the `If-Match` versions it must have. */
export type LockTarget = Omit<LockedUpdate<never>, 'change'> & {
  /** an extra SQL condition a row must meet to count, e.g. `k.revoked_at IS NULL` */
  condition?: string;
};

/**
 * Reads the row `FOR UPDATE` and checks `If-Match` against its version: the first half
 * of every guarded write (update, delete, revoke). Null when no row matches.
 */
export async function lockForWrite<E extends ObjectLiteral & { version: number }>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  alias: string,
  target: LockTarget,
): Promise<E | null> {
  const query = manager
    .createQueryBuilder(entity, alias)
    .where(`${target.keyColumn} = :key`, { key: target.key });
  if (target.archivable !== false) query.andWhere(`${alias}.archived_at IS NULL`);
  if (target.condition) query.andWhere(target.condition);
  const current = await query.setLock('pessimistic_write').getOne();
  if (current && target.expectedVersions && !target.expectedVersions.includes(current.version)) {
    throw new PreconditionFailedProblem();
  }
  return current;
}

/** Deletes the row under its lock once `If-Match` holds; returns it, or null when absent. */
export async function deleteWithLock<E extends ObjectLiteral & { version: number }>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  alias: string,
  target: LockTarget,
): Promise<E | null> {
  const current = await lockForWrite(manager, entity, alias, target);
  if (current) {
    await manager
      .createQueryBuilder()
      .delete()
      .from(entity)
      .where(`${target.keyColumn.split('.')[1]} = :key`, { key: target.key })
      .execute();
  }
  return current;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b;
}
