import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../src/config/app-config';
import { Registry } from 'prom-client';
import { createWorkerContext } from '../src/events/deliveries/worker-context';
import { Metrics } from '../src/metrics/metrics';
import { serveMetrics } from '../src/metrics/metrics-server';
import {
  LOST_ATTEMPT,
  WebhookDeliveriesRepository,
} from '../src/events/deliveries/webhook-deliveries.repository';
import { WebhookWorker } from '../src/events/deliveries/webhook-worker';
import { Outbox } from '../src/events/outbox';
import { ORDER_TEST_ENV } from './support/order-factories';
import {
  createSharedDatabase,
  SharedDatabaseApps,
  startSharedDatabaseApps,
} from './support/shared-database-apps';
import { startTestApp, startTestAppOn, TestApp } from './support/test-app';
import type { TestDatabase } from './support/test-database';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * API.md §10, DESIGN.md §4, §7: deliveries are shared by any number of workers on one
 * database without an attempt ever sent twice at once, and an event committed before a
 * crash is delivered by a worker started afterwards.
 */

const ENV = {
  ...ORDER_TEST_ENV,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1',
};

let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(() => receiver?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

async function register(api: TestApp, path: string): Promise<{ id: string; secret: string }> {
  const response = await api.post('/api/v1/webhook-endpoints', {
    url: receiver.url(path),
    events: ['*'],
  });
  if (response.status !== 201) throw new Error(`${response.status} ${response.text}`);
  return response.body as { id: string; secret: string };
}

/** Records `order.created` for a made-up order, as the orders service does, and commits. */
async function recordOrderEvent(api: TestApp): Promise<string> {
  const outbox = api.app.get(Outbox);
  return api.app
    .get(DataSource)
    .transaction((manager) =>
      outbox.record(manager, 'order.created', { id: randomUUID(), status: 'pending', version: 1 }),
    );
}

describe('two workers on one outbox', () => {
  let shared: SharedDatabaseApps;

  beforeAll(async () => {
    shared = await startSharedDatabaseApps(2, ENV);
  });
  afterAll(() => shared?.close());

  it('never send the same delivery twice, however their rounds interleave', async () => {
    const [first, second] = shared.apps;
    const endpoint = await register(first, '/r/concurrent');
    const eventIds: string[] = [];
    for (let i = 0; i < 24; i++) eventIds.push(await recordOrderEvent(i % 2 ? first : second));
    receiver.script('/r/concurrent', () => ({ status: 200, delayMs: 20 }));
    const workers = [first, second].map((api) => api.app.get(WebhookWorker));
    // small batches, so the rounds of both workers overlap many times
    for (const worker of workers) worker.tune({ claimBatch: 3, fanOutBatch: 5, concurrency: 2 });

    const attemptedBy = [0, 0];
    const deadline = Date.now() + 60_000;
    while (receiver.receipts('/r/concurrent').length < eventIds.length && Date.now() < deadline) {
      const rounds = await Promise.all(
        [0, 1, 0, 1].map(async (i) => ({ i, summary: await workers[i].runOnce() })),
      );
      for (const { i, summary } of rounds) attemptedBy[i] += summary.attempted;
    }

    const receipts = receiver.receipts('/r/concurrent');
    const perId = new Map<string, number>();
    for (const receipt of receipts) {
      const id = String(receipt.headers['webhook-id']);
      perId.set(id, (perId.get(id) ?? 0) + 1);
      WebhookReceiver.verify(receipt, endpoint.secret);
    }
    expect([...perId.keys()].sort()).toEqual([...eventIds].sort());
    expect([...perId.values()].every((n) => n === 1)).toBe(true);
    expect(receipts).toHaveLength(eventIds.length);
    expect(attemptedBy[0] + attemptedBy[1]).toBe(eventIds.length);
    expect(attemptedBy.every((n) => n > 0)).toBe(true);
    const rows: { status: string; attempts: number; n: string }[] = await first.app
      .get(DataSource)
      .query(
        `SELECT d.status, d.attempt_count AS attempts, count(a.id) AS n
         FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
         WHERE d.endpoint_id = $1 GROUP BY d.id`,
        [endpoint.id],
      );
    expect(rows).toHaveLength(eventIds.length);
    expect(
      rows.every((r) => r.status === 'succeeded' && r.attempts === 1 && Number(r.n) === 1),
    ).toBe(true);
  });
});

describe('a worker that stops between taking a lease and recording its attempt', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp(ENV);
  });
  afterAll(() => api?.close());

  it('has that attempt logged as one whose outcome is unknown when another worker takes the delivery over; a lease handed back is not', async () => {
    const endpoint = await register(api, '/r/taken-over');
    receiver.script('/r/taken-over', () => ({ status: 200 }));
    const deliveries = api.app.get(WebhookDeliveriesRepository);
    const db = api.app.get(DataSource);
    await recordOrderEvent(api);
    await recordOrderEvent(api);
    await deliveries.fanOut(10);
    // the stopped worker's leases, one left to run out, one handed back
    const [dead, released] = await deliveries.claimDue(2, 60, randomUUID());
    await deliveries.release([released.id], released.leaseToken);
    await db.query(
      `UPDATE webhook_deliveries SET locked_until = now() - interval '1 second' WHERE id = $1`,
      [dead.id],
    );
    const [{ leased_at: leasedAt }] = await db.query<{ leased_at: Date }[]>(
      `SELECT locked_until - interval '60 seconds' AS leased_at FROM webhook_deliveries WHERE id = $1`,
      [dead.id],
    );

    await api.app.get(WebhookWorker).runOnce();
    const read = (id: string) =>
      api.get(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${id}`);
    const takenOver = await read(dead.id);
    const handedBack = await read(released.id);

    expect(receiver.receipts('/r/taken-over')).toHaveLength(2);
    expect(takenOver.body).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(takenOver.body.attempts).toEqual([
      {
        attempt: 1,
        at: leasedAt.toISOString(),
        succeeded: false,
        statusCode: null,
        error: LOST_ATTEMPT,
        latencyMs: 0,
        responseExcerpt: null,
      },
      expect.objectContaining({ attempt: 2, succeeded: true, statusCode: 200 }),
    ]);
    expect(handedBack.body).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(handedBack.body.attempts).toEqual([
      expect.objectContaining({ attempt: 1, succeeded: true, statusCode: 200 }),
    ]);
  });
});

describe('a process that dies after the commit', () => {
  let database: TestDatabase;
  let worker: INestApplicationContext | undefined;

  beforeAll(async () => {
    database = await createSharedDatabase(2);
  });
  afterAll(async () => {
    await worker?.close();
    await database?.drop();
  });

  it('has its event delivered by a worker process started afterwards', async () => {
    const api = await startTestAppOn(database.target, ENV);
    const endpoint = await register(api, '/r/after-restart');
    const eventId = await recordOrderEvent(api);
    // The app goes away with the event committed and nothing sent (WORKER=off).
    await api.close();
    expect(receiver.receipts('/r/after-restart')).toHaveLength(0);

    // `npm run worker`: a worker process alone, polling from boot.
    const config = AppConfig.fromEnvironment({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      WORKER: 'on',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    worker = await createWorkerContext(config, database.target);
    expect(worker.get(WebhookWorker).running).toBe(true);
    const deadline = Date.now() + 20_000;
    while (receiver.receipts('/r/after-restart').length === 0 && Date.now() < deadline) {
      await sleep(100);
    }

    const [receipt] = receiver.receipts('/r/after-restart');
    expect(receipt.headers['webhook-id']).toBe(eventId);
    expect(WebhookReceiver.verify(receipt, endpoint.secret)).toMatchObject({
      id: eventId,
      type: 'order.created',
    });
    // WORKER_METRICS_PORT: the worker's own /metrics shows the delivery it made
    const metrics = await serveMetrics(worker.get(Metrics), 0, '127.0.0.1');
    try {
      const scrape = () => fetch(`http://127.0.0.1:${metrics.port}/metrics`);
      const succeeded = /^webhook_deliveries_total\{outcome="succeeded"\} 1$/m;
      // the outcome is counted once the worker has recorded the attempt, just after the
      // receiver answered
      let text = '';
      for (const until = Date.now() + 10_000; !succeeded.test(text) && Date.now() < until;) {
        text = await (await scrape()).text();
        if (!succeeded.test(text)) await sleep(100);
      }
      const response = await scrape();
      const other = await fetch(`http://127.0.0.1:${metrics.port}/elsewhere`);

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
      expect(await response.text()).toMatch(succeeded);
      expect(other.status).toBe(404);
    } finally {
      await metrics.close();
    }

    await worker.close();
    expect(worker.get(WebhookWorker).running).toBe(false);
    worker = undefined;
  });
});

describe('a worker polling with a receiver that hangs', () => {
  let api: TestApp;
  let worker: WebhookWorker;

  beforeAll(async () => {
    api = await startTestApp(ENV);
    worker = api.app.get(WebhookWorker);
  });
  afterAll(() => api?.close());
  afterEach(async () => {
    await worker.stop();
    // every event goes to every enabled endpoint: the next test starts without these
    for (const { id } of (await api.get('/api/v1/webhook-endpoints')).body.data) {
      await api.request('DELETE', `/api/v1/webhook-endpoints/${id}`);
    }
  });

  it('retries the other endpoints on WEBHOOK_RETRY_SCHEDULE, not when the hanging attempt times out', async () => {
    receiver.script('/r/hangs', () => ({ status: 204, delayMs: 60_000 }));
    receiver.script('/r/fails', () => ({ status: 500 }));
    const hangs = await register(api, '/r/hangs');
    const fails = await register(api, '/r/fails');
    await recordOrderEvent(api);
    // The hanging attempt times out 6 s after it was sent, long after the failing
    // endpoint's retries were due (schedule 1,1: 3 attempts, 1 s apart). The short grace
    // aborts it at the end.
    worker.tune({ attemptTimeoutMs: 6000, pollIntervalMs: 100, shutdownGraceMs: 100 });
    worker.start();
    await eventually(() => receiver.receipts('/r/hangs').length === 1);
    const timeOut = receiver.receipts('/r/hangs')[0].at + 6000;
    while (receiver.receipts('/r/fails').length < 3 && Date.now() < timeOut) await sleep(20);

    const attempts = receiver.receipts('/r/fails').map((r) => r.at);
    const gaps = attempts.slice(1).map((at, i) => at - attempts[i]);
    expect(gaps).toHaveLength(2);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(950);
      // the wait, a poll interval and some slack, far from the 6 s time-out
      expect(gap).toBeLessThan(2500);
    }
    expect(receiver.receipts('/r/hangs')).toHaveLength(1);
    await worker.stop();
    const rows = await api.app
      .get(DataSource)
      .query(
        `SELECT endpoint_id, status, attempt_count FROM webhook_deliveries WHERE endpoint_id = ANY($1)`,
        [[hangs.id, fails.id]],
      );
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        { endpoint_id: fails.id, status: 'dead', attempt_count: 3 },
        // aborted on stop and released, for a worker to send again
        { endpoint_id: hangs.id, status: 'pending', attempt_count: 0 },
      ]),
    );
  });

  it('keeps at most `concurrency` attempts in flight, and uses them all', async () => {
    let inFlight = 0;
    let most = 0;
    // The worker holds a slot from before the request until after the answer, so what
    // the receiver counts in flight never exceeds what the worker has.
    receiver.script('/r/slow', () => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => (inFlight -= 1), 300);
      return { status: 204, delayMs: 300 };
    });
    for (let i = 0; i < 2; i++) await register(api, '/r/slow');
    for (let i = 0; i < 3; i++) await recordOrderEvent(api);
    worker.tune({ concurrency: 4, pollIntervalMs: 100 });
    worker.start();
    await eventually(() => receiver.receipts('/r/slow').length === 6);

    expect(most).toBe(4);
  });
});
