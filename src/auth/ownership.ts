import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { Principal } from './principal';

/**
 * Ownership (docs/architecture.md): staff see every row; a customer only the rows whose
 * `column` holds its own customerId, and none without one. Another customer's row is
 * then simply not found (`404`), on lists and single reads alike.
 */
export function ownedBy<T extends ObjectLiteral>(
  principal: Principal,
  qb: SelectQueryBuilder<T>,
  column: string,
): SelectQueryBuilder<T> {
  if (principal.role !== 'customer') return qb;
  if (principal.customerId === undefined) return qb.andWhere('false');
  return qb.andWhere(`${column} = :ownCustomerId`, { ownCustomerId: principal.customerId });
}
