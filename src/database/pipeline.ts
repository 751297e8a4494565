import type { PoolClient } from 'pg';
import type { EntityManager, QueryRunner } from 'typeorm';

/**
 * Fewer waits and fewer socket writes for a transaction's statements.
 *
 * A transaction holds its pooled connection for every round trip it makes, so with the
 * database across a network the round trips, not the SQL, bound orders a second; on one
 * machine each write also wakes PostgreSQL's backend, which takes the core from the API
 * (docs/performance.md measured both). So, on PostgreSQL, whose connections run in
 * node-postgres pipeline mode (data-source-options.ts):
 *
 * - `together` hands a transaction's independent statements (an order's catalog read and
 *   its reservations) to the connection at once, in one write, and waits once;
 * - `atCommit` keeps writes whose answer nobody needs (an event, the Idempotency-Key's
 *   answer) until the commit, and they go out in the COMMIT's write.
 *
 * PostgreSQL runs them in the order they are written, and its rule for a failure inside
 * a transaction is the usual one: the transaction is aborted, later statements fail with
 * `25P02`, and a COMMIT answers ROLLBACK without an error. So of statements sent together
 * the first failure is thrown, not its echoes, and a failed write kept for the commit is
 * what the commit throws.
 *
 * On a connection that does not pipeline (the embedded database) the same calls run one
 * after another, and writes kept for the commit run just before it: the same results in
 * the same order, only later.
 */
interface Transaction {
  client: PoolClient;
  /** writes kept for the commit, in the order they were asked for */
  atCommit: (() => Promise<unknown>)[];
}

const transactions = new WeakMap<QueryRunner, Transaction>();

/**
 * Begins `runner`'s transaction on `client` (transaction.ts), resolving once its statements
 * may be sent, to START's answer. On a pipelining connection `START TRANSACTION` is handed
 * over at once and its answer not waited for: the socket stays corked until the end of this
 * turn of the event loop, so the transaction's first statements (the Idempotency-Key's
 * claim, or the work's first reads and writes) go out in the same write, one round trip
 * fewer. TypeORM's `startTransaction` would wait for the answer, so the query runner is
 * told here that its transaction has begun, as `startTransaction` tells it (TypeORM's
 * transaction events are not broadcast; the service has no subscribers). Whoever waits on
 * the transaction's statements waits on START's answer too: should START fail, its failure
 * is the one to throw.
 */
export async function begin(
  runner: QueryRunner,
  client: PoolClient,
): Promise<{ answered: Promise<void> }> {
  transactions.set(runner, { client, atCommit: [] });
  if (!client.pipeline) {
    await runner.startTransaction();
    return { answered: Promise.resolve() };
  }
  corkForThisTurn(client);
  const answered = client.query('START TRANSACTION').then(() => undefined);
  // waited on once the first statements are answered; a failure before then is not unhandled
  answered.catch(() => undefined);
  const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  state.isTransactionActive = true;
  state.transactionDepth = 1;
  return { answered };
}

/**
 * The client to hand a statement of `manager`'s transaction to directly, so it is sent in
 * the order it is written (TypeORM's `query` awaits before it sends); undefined outside a
 * transaction that `begin` knows.
 */
export function clientOf(manager: EntityManager): PoolClient | undefined {
  return transactionOf(manager)?.client;
}

/**
 * Runs statements of one transaction that do not depend on one another, each `send`
 * handing its statement over before its first `await` (PreparedStatement.run does), and
 * answers their results in order once all are in (`inOrder`).
 */
export async function together<T extends readonly unknown[]>(
  manager: EntityManager,
  ...sends: { [K in keyof T]: () => Promise<T[K]> }
): Promise<T> {
  const transaction = transactionOf(manager);
  if (!transaction?.client.pipeline) {
    const results: unknown[] = [];
    for (const send of sends) results.push(await send());
    return results as unknown as T;
  }
  return (await inOrder(
    inOneWrite(transaction.client, () => sends.map((send) => send())),
  )) as unknown as T;
}

/**
 * A write of `manager`'s transaction whose answer the caller does not need, kept and sent
 * with the commit: later statements of the transaction do not see it. Its failure makes
 * the commit fail, and the transaction roll back. Outside a transaction that `begin`
 * knows it runs now.
 */
export async function atCommit(
  manager: EntityManager,
  send: () => Promise<unknown>,
): Promise<void> {
  const transaction = transactionOf(manager);
  if (transaction) transaction.atCommit.push(send);
  else await send();
}

/**
 * Commits `runner`'s transaction, with the writes kept for it in the COMMIT's write. The
 * connection's socket is corked until the end of this turn of the event loop, by when
 * TypeORM has handed it the COMMIT (it only awaits settled promises before): should it
 * ever not have, the COMMIT goes in a write of its own, in the same order.
 */
export async function commitPipelined(runner: QueryRunner): Promise<void> {
  const transaction = transactions.get(runner);
  const writes = transaction?.atCommit.splice(0) ?? [];
  // With nothing kept, the COMMIT has nothing to wait for in the socket either.
  if (!transaction?.client.pipeline || writes.length === 0) {
    for (const write of writes) await write();
    await runner.commitTransaction();
    return;
  }
  corkForThisTurn(transaction.client);
  const sent = writes.map((write) => write());
  // A failed write is thrown: PostgreSQL answers the COMMIT after it with ROLLBACK, no error.
  await inOrder([...sent, runner.commitTransaction()]);
}

/** A transaction that rolls back: the writes kept for its commit are not sent. */
export function discardKept(runner: QueryRunner): void {
  const transaction = transactions.get(runner);
  if (transaction) transaction.atCommit.length = 0;
}

/**
 * The answers of statements sent in this order, once all are in; else the first failure,
 * since those after it in the transaction only echo it (`25P02`). Waiting for all leaves
 * the connection idle for a rollback.
 */
async function inOrder(answers: Promise<unknown>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(answers);
  const failed = settled.find((answer) => answer.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((answer) => (answer as PromiseFulfilledResult<unknown>).value);
}

/**
 * Holds `client`'s writes until the end of this turn of the event loop: whatever is handed
 * to it meanwhile, after awaits on settled promises included, goes out in one write.
 */
function corkForThisTurn(client: PoolClient): void {
  const stream = client.connection.stream;
  stream.cork();
  setImmediate(() => stream.uncork());
}

/** `send`'s statements in one write: the socket is corked while they are handed over. */
function inOneWrite<T>(client: PoolClient, send: () => T): T {
  const stream = client.connection.stream;
  stream.cork();
  try {
    return send();
  } finally {
    stream.uncork();
  }
}

function transactionOf(manager: EntityManager): Transaction | undefined {
  const runner = manager.queryRunner;
  return runner ? transactions.get(runner) : undefined;
}
