/**
 * The rows of a raw query's result. TypeORM's PostgreSQL driver answers an UPDATE or
 * DELETE (also with RETURNING) as `[rows, affectedCount]` and anything else as the rows.
 */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}
