import { Socket } from 'node:net';
import type { PoolClient } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import { atCommit, clientOf, together } from '../src/database/pipeline';
import { PreparedStatement } from '../src/database/prepared-statement';
import { inTransaction, type OpenTransaction } from '../src/database/transaction';
import { startTestApp, TestApp } from './support/test-app';

/**
 * A transaction's statements sent together, and writes kept for its commit
 * (src/database/pipeline.ts): fewer writes to PostgreSQL's socket, with the results,
 * errors and atomicity of statements sent one by one.
 */
const embedded = !process.env.DATABASE_URL;

const NUMBER = new PreparedStatement('SELECT $1::int AS n');
const DIVIDE = new PreparedStatement('SELECT 1 / $1::int AS n');
const INSERT = new PreparedStatement('INSERT INTO pipeline_probe (name) VALUES ($1)');
const COUNT = new PreparedStatement(
  'SELECT count(*)::int AS n FROM pipeline_probe WHERE name = $1',
);

/**
 * Socket writes to `stream()` (known by the end of `act`) while `act` runs; a corked batch
 * is flushed by one `_writev`.
 */
async function writesDuring(stream: () => unknown, act: () => Promise<unknown>): Promise<number> {
  const write = jest.spyOn(Socket.prototype, '_write');
  const writev = jest.spyOn(Socket.prototype, '_writev');
  try {
    await act();
    return [...write.mock.contexts, ...writev.mock.contexts].filter((s) => s === stream()).length;
  } finally {
    write.mockRestore();
    writev.mockRestore();
  }
}

/** The socket of `manager`'s transaction. */
const socketOf = (manager: Parameters<typeof clientOf>[0]) =>
  (clientOf(manager) as PoolClient).connection.stream;

describe('pipelined transactions', () => {
  let api: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    api = await startTestApp();
    db = api.app.get(DataSource);
    await db.query('CREATE TABLE pipeline_probe (name text PRIMARY KEY)');
  });
  afterAll(() => api.close());

  const rows = async (name: string) => (await COUNT.run<{ n: number }[]>(db, [name]))[0].n;

  /** A transaction left open after `work`, as the Idempotency-Key's commit hook gets it. */
  async function openAfter(
    work: Parameters<typeof inTransaction>[1],
    begin: NonNullable<Parameters<typeof inTransaction>[2]>['begin'] = () => Promise.resolve(),
  ): Promise<OpenTransaction> {
    let open: OpenTransaction | undefined;
    await inTransaction(db, work, {
      begin,
      adopt: (transaction) => {
        open = transaction;
      },
    });
    return open as OpenTransaction;
  }

  it("sends START TRANSACTION in the write of the transaction's first statements", async () => {
    let socket: unknown;
    // START with the work's first statement, then the COMMIT
    const plain = await writesDuring(
      () => socket,
      () =>
        inTransaction(db, async (manager) => {
          socket = socketOf(manager);
          expect(await NUMBER.run(manager, [1])).toEqual([{ n: 1 }]);
        }),
    );
    // START with the hook's statement (an Idempotency-Key's claim), the work's, the COMMIT
    const hooked = await writesDuring(
      () => socket,
      async () => {
        const open = await openAfter(
          async (manager) => {
            socket = socketOf(manager);
            expect(await NUMBER.run(manager, [2])).toEqual([{ n: 2 }]);
          },
          async (manager) => {
            expect(await NUMBER.run(manager, [1])).toEqual([{ n: 1 }]);
          },
        );
        await open.commit();
      },
    );
    if (!embedded) expect([plain, hooked]).toEqual([2, 3]);
  });

  it('runs independent statements together, in one write on PostgreSQL, and answers each in order', async () => {
    const results = await inTransaction(db, async (manager) => {
      const client = clientOf(manager) as PoolClient;
      expect(client.pipeline).toBe(!embedded);
      let answers: unknown;
      const writes = await writesDuring(
        () => client.connection.stream,
        async () => {
          answers = await together(
            manager,
            () => NUMBER.run(manager, [1]),
            () => NUMBER.run(manager, [2]),
            () => NUMBER.run(manager, [3]),
          );
        },
      );
      // The embedded database runs them one by one (pipeline.ts).
      if (!embedded) expect(writes).toBe(1);
      return answers;
    });
    expect(results).toEqual([[{ n: 1 }], [{ n: 2 }], [{ n: 3 }]]);
  });

  it('throws the first failure of statements sent together, not the aborted transaction it left', async () => {
    const failure = await inTransaction(db, (manager) =>
      together(
        manager,
        () => NUMBER.run(manager, [1]),
        () => DIVIDE.run(manager, [0]),
        () => NUMBER.run(manager, [3]),
      ),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailedError);
    // division_by_zero; the statement after it failed with 25P02 (in_failed_sql_transaction)
    expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe(
      '22012',
    );
  });

  it("keeps a write for the commit: unseen by the rest of the transaction, committed with it in the COMMIT's write", async () => {
    let seenInside: number | undefined;
    const transaction = await openAfter(async (manager) => {
      await atCommit(manager, () => INSERT.run(manager, ['kept']));
      [{ n: seenInside }] = await COUNT.run<{ n: number }[]>(manager, ['kept']);
    });
    expect(seenInside).toBe(0);
    const writes = await writesDuring(
      () => socketOf(transaction.manager),
      () => transaction.commit(),
    );
    if (!embedded) expect(writes).toBe(1);
    expect(await rows('kept')).toBe(1);
  });

  it('rolls the whole transaction back when a write kept for the commit fails, and throws that failure', async () => {
    await INSERT.run(db, ['taken']);
    const failure = await inTransaction(db, async (manager) => {
      await INSERT.run(manager, ['written before']);
      await atCommit(manager, () => INSERT.run(manager, ['taken']));
    }).catch((error: unknown) => error);
    expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe(
      '23505',
    );
    expect(await rows('written before')).toBe(0);
  });

  it('never sends the writes kept for a transaction that fails', async () => {
    const failure = await inTransaction(db, async (manager) => {
      await atCommit(manager, () => INSERT.run(manager, ['never']));
      throw new Error('the work failed');
    }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe('the work failed');
    const transaction = await openAfter((manager) =>
      atCommit(manager, () => INSERT.run(manager, ['rolled back'])),
    );
    await transaction.rollback();
    expect([await rows('never'), await rows('rolled back')]).toEqual([0, 0]);
  });
});
