import type { PoolClient } from 'pg';
import { DataSource, EntityManager, QueryFailedError, QueryRunner } from 'typeorm';
import { begin, commitPipelined, discardKept } from './pipeline';

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
const MAX_ATTEMPTS = 5;

/** A transaction whose work is done, left open for the one who ends it. */
export interface OpenTransaction {
  readonly manager: EntityManager;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * What a caller adds to a use case's transaction: a write run first inside it, and the
 * end of the transaction. The idempotency interceptor claims its key this way
 * (`@CommitHook()` hands it to the controller, which hands it to the service), then
 * stores the request's answer in the same transaction before it commits it: the claim,
 * the work and the answer commit together or not at all. It is passed explicitly rather
 * than carried by an AsyncLocalStorage: on Node 20 one AsyncLocalStorage in use turns on
 * promise hooks for the whole process, which took 13 % off GET throughput and 15 % off
 * orders.
 */
export interface CommitHook {
  /** Runs first inside every attempt of the transaction; throwing rolls it back. */
  begin(manager: EntityManager): Promise<void>;
  /**
   * The work succeeded: the transaction is handed over open, and the hook commits or
   * rolls it back. `inTransaction` returns without committing.
   */
  adopt(transaction: OpenTransaction): void;
}

/**
 * Runs a use case that writes several rows as one transaction, retried on a deadlock or
 * serialization failure with jittered back-off (STYLE.md: declarative boundaries).
 *
 * With a `commitHook`, the transaction is still open when this returns: the hook ends it
 * once the request has its answer. Code after `inTransaction` then runs before the commit,
 * so it must not rely on it (read the new rows on another connection, say) nor wait on
 * another transaction (the embedded database has one session); throwing a 4xx there
 * still commits the work, with that answer.
 */
export async function inTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  commitHook?: CommitHook,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(dataSource, work, commitHook);
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

/**
 * One attempt: the hook's write, the work, then the commit, or the open transaction
 * handed to the hook. The connection is known to pipeline.ts from the start, so the
 * transaction's START goes out with its first statements, the work's statements can be
 * sent together and writes kept for the commit.
 */
async function once<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  hook: CommitHook | undefined,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  let handedOver = false;
  try {
    const { answered } = await begin(runner, (await runner.connect()) as PoolClient);
    let result: T;
    try {
      await hook?.begin(runner.manager);
      result = await work(runner.manager);
    } finally {
      // START's own failure, if it failed, is what made the statements after it fail
      await answered;
    }
    if (hook) {
      hook.adopt(openTransaction(runner));
      handedOver = true;
    } else {
      await commitPipelined(runner);
    }
    return result;
  } catch (error) {
    await rollBack(runner);
    throw error;
  } finally {
    if (!handedOver) await runner.release();
  }
}

function openTransaction(runner: QueryRunner): OpenTransaction {
  const end = async (how: () => Promise<void>) => {
    try {
      await how();
    } finally {
      await runner.release();
    }
  };
  return {
    manager: runner.manager,
    commit: () =>
      end(async () => {
        try {
          await commitPipelined(runner);
        } catch (error) {
          await rollBack(runner);
          throw error;
        }
      }),
    rollback: () => end(() => rollBack(runner)),
  };
}

/**
 * Ends a failed attempt, unless its COMMIT already ended it (a write kept for the commit
 * failed, and PostgreSQL rolled back).
 */
async function rollBack(runner: QueryRunner): Promise<void> {
  discardKept(runner);
  if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
}
