import { QueryFailedError } from 'typeorm';

/** True when `error` is PostgreSQL refusing a write because of the named constraint. */
export function violates(error: unknown, constraint: string): boolean {
  const driverError = (error as { driverError?: { constraint?: string } }).driverError;
  return error instanceof QueryFailedError && driverError?.constraint === constraint;
}
