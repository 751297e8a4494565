import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { PreconditionFailedProblem } from '../http/problem';

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

/**
 * Lock, check, update in one transaction (STYLE.md: updateWithLock): the row is read
 * `FOR UPDATE`, `If-Match` is compared with its version, the rule computes the change,
 * and the UPDATE bumps `version` and `updated_at`. Returns null when no live row has the
 * key (any row, for tables that are never archived). Concurrent writers queue on the row
 * lock, so none is lost.
 */
export async function updateWithLock<E extends ObjectLiteral & { version: number }>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  alias: string,
  update: LockedUpdate<E>,
): Promise<E | null> {
  const select = () =>
    manager
      .createQueryBuilder(entity, alias)
      .where(`${update.keyColumn} = :key`, { key: update.key });
  const locking = select();
  if (update.archivable !== false) locking.andWhere(`${alias}.archived_at IS NULL`);
  const current = await locking.setLock('pessimistic_write').getOne();
  if (!current) return null;
  if (update.expectedVersions && !update.expectedVersions.includes(current.version)) {
    throw new PreconditionFailedProblem();
  }
  const change = await update.change(current);
  // A write that changes nothing is no change: the version stays (API.md §3).
  if (
    Object.entries(change).every(([k, v]) => sameValue((current as Record<string, unknown>)[k], v))
  ) {
    return current;
  }
  await manager
    .createQueryBuilder()
    .update(entity)
    .set(change)
    .where(`${update.keyColumn.split('.')[1]} = :key`, { key: update.key })
    .execute();
  return select().getOneOrFail();
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b;
}
