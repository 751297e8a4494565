import {
  In,
  type EntityManager,
  type EntityTarget,
  type FindOptionsOrder,
  type FindOptionsWhere,
  type ObjectLiteral,
} from 'typeorm';

/**
 * Loads the children of `parents` (an order's lines, a delivery's attempts) with one
 * query, whatever the number of parents (a page, or one), and hands each parent its own,
 * in `orderKey` order.
 */
export async function attachChildren<P extends { id: string }, C extends ObjectLiteral>(
  manager: EntityManager,
  parents: P[],
  child: EntityTarget<C>,
  keys: { parent: keyof C & string; order: keyof C & string },
  assign: (parent: P, children: C[]) => void,
): Promise<void> {
  if (parents.length === 0) return;
  const children = await manager.find(child, {
    where: { [keys.parent]: In(parents.map((p) => p.id)) } as FindOptionsWhere<C>,
    order: { [keys.parent]: 'ASC', [keys.order]: 'ASC' } as FindOptionsOrder<C>,
  });
  const byParent = new Map<unknown, C[]>();
  for (const row of children) {
    const siblings = byParent.get(row[keys.parent]);
    if (siblings) siblings.push(row);
    else byParent.set(row[keys.parent], [row]);
  }
  for (const parent of parents) assign(parent, byParent.get(parent.id) ?? []);
}
