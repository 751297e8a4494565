import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * A select (or `RETURNING`) list that names every column of `entity` by its property,
 * so a row of a raw statement becomes an entity with `manager.create(entity, row)`.
 */
export function columnsAsProperties<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
): string {
  return manager.connection
    .getMetadata(entity)
    .columns.map((column) => `"${column.databaseName}" AS "${column.propertyName}"`)
    .join(', ');
}
