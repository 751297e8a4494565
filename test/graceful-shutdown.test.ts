import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Agent, IncomingMessage, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../src/config/app-config';
import { createWorkerContext } from '../src/events/deliveries/worker-context';
import { Outbox } from '../src/events/outbox';
import { onShutdownSignal } from '../src/shutdown';
import { productBody } from './support/factories';
import { parseAnswer } from './support/raw-http';
import { createSharedDatabase } from './support/shared-database-apps';
import { ADMIN_KEY, startTestAppOn, TestApp } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * SIGTERM and SIGINT stop the API and the worker gracefully: work in flight finishes
 * with its real outcome, nothing new is taken, and the process exits once. The signal is
 * emitted in this process; `exit` stands in for process.exit.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(condition: () => boolean | Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * Rows read with a connection of the test's own, once the app or worker has closed. The
 * embedded database takes one connection, and may not have seen the app's go yet.
 */
async function query(database: TestDatabase, sql: string, params: unknown[] = []) {
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ connectionString: database.target.url });
    try {
      await client.connect();
      return (await client.query(sql, params)).rows as unknown[];
    } catch (error) {
      if (attempt === 10) throw error;
      await sleep(100);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

async function text(response: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return body;
}

describe('SIGTERM on the API', () => {
  let database: TestDatabase;
  let api: TestApp;
  const exit = jest.fn();
  let removeHandlers: () => void;

  beforeAll(async () => {
    database = await createTestDatabase();
    api = await startTestAppOn(database.target);
    removeHandlers = onShutdownSignal(() => api.close(), { exit });
  });
  afterAll(async () => {
    removeHandlers?.();
    if (exit.mock.calls.length === 0) await api?.close();
    await database?.drop();
  });

  it('finishes the request in flight, refuses new connections, then exits once', async () => {
    const port = Number(new URL(api.baseUrl).port);
    const idle = new Agent({ keepAlive: true });
    const busy = new Agent({ keepAlive: true });
    try {
      // a keep-alive connection left idle must not hold the shutdown up
      const warmUp = httpRequest({ port, path: '/health', agent: idle }).end();
      await text((await once(warmUp, 'response'))[0] as IncomingMessage);

      // a request in flight: its headers are in and routed, its body is not complete yet
      const body = JSON.stringify(productBody());
      const routed = once(api.app.getHttpServer(), 'request');
      const inFlight = httpRequest({
        port,
        method: 'POST',
        path: '/api/v1/products',
        agent: busy,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-API-Key': ADMIN_KEY,
        },
      });
      const answered = once(inFlight, 'response');
      inFlight.write(body.slice(0, 10));
      await routed;
      // a connection whose next request is only half sent: it is not idle, so it stays open
      const late = connect(port, '127.0.0.1');
      const lateAnswer = new Promise<string>((resolve) => {
        let received = '';
        late.on('data', (chunk) => (received += String(chunk)));
        late.on('close', () => resolve(received));
      });
      await once(late, 'connect');
      late.write(`POST /api/v1/products HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      await sleep(50);

      process.emit('SIGTERM', 'SIGTERM');

      await eventually(() => refusesConnections(port));
      expect(exit).not.toHaveBeenCalled();

      // it comes in while closing: refused untouched, as the API's 503 problem
      late.write(
        `X-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      const refused = parseAnswer(await lateAnswer);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(refused.body.requestId).toBe(refused.headers.get('x-request-id'));
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
      expect(refused.headers.get('connection')).toBe('close');

      inFlight.end(body.slice(10));
      const response = (await answered)[0] as IncomingMessage;
      expect(response.statusCode).toBe(201);
      expect(JSON.parse(await text(response))).toMatchObject({ sku: JSON.parse(body).sku });
      // its connection closes with the answer instead of idling until keepAliveTimeout
      expect(response.headers.connection).toBe('close');

      await eventually(() => exit.mock.calls.length > 0);
      expect(exit).toHaveBeenCalledTimes(1);
      expect(exit).toHaveBeenCalledWith(0);
    } finally {
      idle.destroy();
      busy.destroy();
    }
    // the key's use by those last requests was written by the final flush, after they ended;
    // the refused one counts, as every refused /api request does (API.md §8)
    expect(await query(database, 'SELECT sum(requests)::int AS n FROM api_key_usage')).toEqual([
      { n: 2 },
    ]);
  });
});

describe('SIGTERM on a worker process', () => {
  let receiver: WebhookReceiver;
  let database: TestDatabase;
  let worker: INestApplicationContext | undefined;
  const exit = jest.fn();
  let removeHandlers: (() => void) | undefined;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    database = await createSharedDatabase(2);
  });
  afterAll(async () => {
    removeHandlers?.();
    if (exit.mock.calls.length === 0) await worker?.close();
    await database?.drop();
    await receiver?.close();
  });

  it('records the attempt in flight before it exits', async () => {
    // an endpoint and an event committed, nothing sent yet (WORKER=off)
    const api = await startTestAppOn(database.target, { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const registered = await api.post('/api/v1/webhook-endpoints', {
      url: receiver.url('/r/slow'),
      events: ['*'],
    });
    expect(registered.status).toBe(201);
    await api.app
      .get(DataSource)
      .transaction((manager) =>
        api.app
          .get(Outbox)
          .record(manager, 'order.created', { id: randomUUID(), status: 'pending', version: 1 }),
      );
    await api.close();
    receiver.script('/r/slow', () => ({ status: 200, delayMs: 1500 }));

    // `npm run worker`
    const config = AppConfig.fromEnvironment({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      WORKER: 'on',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    const context = await createWorkerContext(config, database.target);
    worker = context;
    removeHandlers = onShutdownSignal(() => context.close(), { exit });
    await eventually(() => receiver.receipts('/r/slow').length === 1);

    // the attempt is in flight: the receiver answers 1.5 s after it got the request
    process.emit('SIGTERM', 'SIGTERM');

    await eventually(() => exit.mock.calls.length > 0);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(0);
    const attempts = await query(
      database,
      `SELECT d.status, a.status_code FROM webhook_deliveries d
       JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.endpoint_id = $1`,
      [(registered.body as { id: string }).id],
    );
    expect(attempts).toEqual([{ status: 'succeeded', status_code: 200 }]);
  });
});
