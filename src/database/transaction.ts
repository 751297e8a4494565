import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
const MAX_ATTEMPTS = 5;

type BeforeCommit = (manager: EntityManager) => Promise<void>;
const beforeCommit = new AsyncLocalStorage<BeforeCommit>();

/**
 * Runs `work` so that every transaction it commits through inTransaction runs `hook`
 * last, inside that transaction: what the hook writes commits with the use case's own
 * writes or not at all, and a hook that throws rolls them back. The idempotency
 * interceptor marks its key this way.
 */
export function withBeforeCommit<T>(hook: BeforeCommit, work: () => T): T {
  return beforeCommit.run(hook, work);
}

/**
 * Runs a use case that writes several rows as one transaction, retried on a deadlock or
 * serialization failure with jittered back-off (STYLE.md: declarative boundaries).
 */
export async function inTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await dataSource.transaction(async (manager) => {
        const result = await work(manager);
        await beforeCommit.getStore()?.(manager);
        return result;
      });
    } catch (error) {
      const code = (error as QueryFailedError & { driverError?: { code?: string } }).driverError
        ?.code;
      if (
        attempt >= MAX_ATTEMPTS ||
        !(error instanceof QueryFailedError) ||
        !code ||
        !RETRYABLE.has(code)
      ) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt * Math.random()));
    }
  }
}
