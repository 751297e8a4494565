import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DEFAULT_TUNING, WebhookWorker } from '../src/events/deliveries/webhook-worker';
import {
  createApiKey,
  createOrder,
  ORDER_TEST_ENV,
  stockedProduct,
} from './support/order-factories';
import { expectProblem, fieldsOf } from './support/problem';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';
import { Receipt, WebhookReceiver } from './support/webhook-receiver';

/**
 * API.md §10, §3: webhook endpoints, signed at-least-once delivery with retries, the
 * delivery log, disabling rules and secret rotation, against a real receiver on
 * loopback (hence WEBHOOK_ALLOW_PRIVATE_URLS in this app) that verifies every signature
 * with the `standardwebhooks` library. WORKER=off: the tests drive the worker.
 */

const ENV = {
  ...ORDER_TEST_ENV,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1',
};

let api: TestApp;
let strict: TestApp;
let receiver: WebhookReceiver;
let worker: WebhookWorker;
let db: DataSource;
const created: string[] = [];

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  // One after the other, `api` last: Passport's strategy registry is process-wide, so the
  // app started last authenticates every request (support/shared-database-apps.ts), and
  // keys made by createApiKey live in `api`'s database. The bootstrap key is in both.
  strict = await startTestApp(ORDER_TEST_ENV);
  api = await startTestApp(ENV);
  worker = api.app.get(WebhookWorker);
  db = api.app.get(DataSource);
});

afterAll(async () => {
  await Promise.all([api?.close(), strict?.close()]);
  await receiver?.close();
});

// Every event goes to every enabled endpoint subscribed: a test's endpoints must not
// collect the next test's events.
afterEach(async () => {
  for (const id of created.splice(0)) {
    await api.request('DELETE', `/api/v1/webhook-endpoints/${id}`);
  }
});

interface Endpoint {
  id: string;
  secret: string;
  [key: string]: any;
}

async function register(
  path: string,
  events: string[] = ['*'],
  on: TestApp = api,
): Promise<Endpoint> {
  const response = await on.post('/api/v1/webhook-endpoints', {
    url: receiver.url(path),
    events,
    description: `receiver ${path}`,
  });
  if (response.status !== 201) {
    throw new Error(`endpoint not created: ${response.status} ${response.text}`);
  }
  if (on === api) created.push(response.body.id);
  return response.body as Endpoint;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs worker rounds until `done` holds (or fails after `timeoutMs`). */
async function deliverUntil(done: () => boolean, timeoutMs = 15_000, by = worker): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await by.runOnce();
    if (done()) return;
    if (Date.now() > deadline) throw new Error('not delivered in time');
    await sleep(100);
  }
}

async function placeOrder() {
  const product = await stockedProduct(api, 10);
  return createOrder(api, [{ sku: product.sku, quantity: 1 }]);
}

async function deliveriesOf(endpointId: string, query = '') {
  const response = await api.get(`/api/v1/webhook-endpoints/${endpointId}/deliveries${query}`);
  expect(response.status).toBe(200);
  return response.body as { data: any[]; pagination: any };
}

const signatures = (receipt: Receipt) => String(receipt.headers['webhook-signature']).split(' ');

describe('registering endpoints', () => {
  it('answers 201 with the secret, once: GET and the list never show it', async () => {
    const response = await api.post('/api/v1/webhook-endpoints', {
      url: receiver.url('/r/register'),
      events: ['order.created', 'order.status_changed'],
      description: 'ERP',
    });
    expect(response.status).toBe(201);
    created.push(response.body.id);

    expect(response.headers.get('location')).toBe(`/api/v1/webhook-endpoints/${response.body.id}`);
    expect(response.body).toEqual({
      id: expect.any(String),
      url: receiver.url('/r/register'),
      description: 'ERP',
      events: ['order.created', 'order.status_changed'],
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(response.body.secret.slice(6), 'base64')).toHaveLength(32);

    const one = await api.get(`/api/v1/webhook-endpoints/${response.body.id}`);
    const { secret: _secret, ...shown } = response.body;
    expect(one.status).toBe(200);
    expect(one.body).toEqual(shown);
    expect(one.headers.get('etag')).toBe('"1"');
    const list = await api.get('/api/v2/webhook-endpoints');
    expect(list.body.data).toContainEqual(shown);
    expect(list.text).not.toContain(response.body.secret);
  });

  it('replays a creation and a rotation without their secret, as the OpenAPI documents say', async () => {
    const body = { url: receiver.url('/r/replayed'), events: ['order.created'] };
    const key = { headers: { 'Idempotency-Key': `replay-${Date.now()}` } };
    const first = await api.post('/api/v1/webhook-endpoints', body, key);
    const replay = await api.post('/api/v1/webhook-endpoints', body, key);
    created.push(first.body.id);
    const rotation = `/api/v1/webhook-endpoints/${first.body.id}/secret-rotations`;
    const rotationKey = { headers: { 'Idempotency-Key': `rotation-${Date.now()}` } };
    const rotated = await api.post(rotation, undefined, rotationKey);
    const rotationReplay = await api.post(rotation, undefined, rotationKey);

    expect([first.status, replay.status, rotated.status, rotationReplay.status]).toEqual([
      201, 201, 200, 200,
    ]);
    for (const [shown, again] of [
      [first, replay],
      [rotated, rotationReplay],
    ]) {
      expect(shown.body.secret).toMatch(/^whsec_/);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      const { secret: _secret, ...rest } = shown.body;
      expect(again.body).toEqual(rest);
    }
  });

  it('refuses loopback, private and link-local URLs without WEBHOOK_ALLOW_PRIVATE_URLS (422 naming url)', async () => {
    for (const url of [
      receiver.url('/r/refused'),
      `http://localhost:${receiver.port}/r/refused`,
      'http://10.0.0.7/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/hook',
      'http://100.64.0.1/hook',
    ]) {
      const response = await strict.post('/api/v1/webhook-endpoints', { url, events: ['*'] });

      const problem = expectProblem(response, 422, 'validation_failed');
      expect([url, fieldsOf(problem)]).toEqual([url, ['url']]);
    }
  });

  it('refuses URLs that are not http(s), carry credentials or a fragment, name no real host, or subscribe to unknown events', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://example.com/x', events: ['*'] }, 'url'],
      [{ url: `http://user:pw@127.0.0.1:${receiver.port}/x`, events: ['*'] }, 'url'],
      // not a URI (RFC 3986) until percent-encoded, though a browser would take them
      [{ url: receiver.url('/a b'), events: ['*'] }, 'url'],
      [{ url: receiver.url('/é'), events: ['*'] }, 'url'],
      [{ url: `http://127.0.0.1:${receiver.port}\\x`, events: ['*'] }, 'url'],
      [{ url: ` ${receiver.url('/x')} `, events: ['*'] }, 'url'],
      [{ url: receiver.url('/a[b]'), events: ['*'] }, 'url'],
      [{ url: receiver.url('/x?a=[1]'), events: ['*'] }, 'url'],
      [{ url: receiver.url('/a#b#c'), events: ['*'] }, 'url'],
      // never sent, so never the URL called
      [{ url: receiver.url('/x#frag'), events: ['*'] }, 'url'],
      // a URI (RFC 3986 allows * in a host name), but no host has that name
      [{ url: 'https://*.example.com/x', events: ['*'] }, 'url'],
      [{ url: receiver.url('/x'), events: ['order.shipped'] }, 'events[0]'],
      [{ url: receiver.url('/x'), events: [] }, 'events'],
      [{ url: receiver.url('/x'), events: ['*', '*'] }, 'events'],
      [{ url: receiver.url('/x'), events: ['*'], secret: 'whsec_mine' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const problem = expectProblem(
        await api.post('/api/v1/webhook-endpoints', body),
        422,
        'validation_failed',
      );
      expect([body, fieldsOf(problem)]).toEqual([body, expect.arrayContaining([field])]);
    }
  });

  it('takes a URL with its special characters percent-encoded, and keeps it as sent', async () => {
    const url = receiver.url('/a%20b/%C3%A9?q=1&r=%5C');

    const response = await api.post('/api/v1/webhook-endpoints', { url, events: ['*'] });
    created.push(response.body.id);

    expect(response.status).toBe(201);
    expect(response.body.url).toBe(url);
  });

  it('is for admins only', async () => {
    const operations = await createApiKey(api, 'operations');

    expectProblem(await api.get('/api/v1/webhook-endpoints', operations.as), 403, 'forbidden');
    expectProblem(
      await api.post(
        '/api/v1/webhook-endpoints',
        { url: receiver.url('/x'), events: ['*'] },
        operations.as,
      ),
      403,
      'forbidden',
    );
  });

  it('changes, disables, re-enables and deletes an endpoint (204, then 404)', async () => {
    const endpoint = await register('/r/patch', ['order.created']);
    const path = `/api/v1/webhook-endpoints/${endpoint.id}`;

    const changed = await api.request('PATCH', path, {
      body: { events: ['*'], description: null },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ events: ['*'], description: null, version: 2 });
    expect(changed.body.secret).toBeUndefined();

    const disabled = await api.request('PATCH', path, { body: { enabled: false } });
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'manual', version: 3 });
    expect(disabled.body.disabledAt).toEqual(expect.any(String));
    expectProblem(
      await api.request('PATCH', path, { body: { enabled: true }, headers: { 'If-Match': '"2"' } }),
      412,
      'precondition_failed',
    );
    const enabled = await api.request('PATCH', path, {
      body: { enabled: true },
      headers: { 'If-Match': '"3"' },
    });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    expectProblem(
      await api.request('PATCH', path, { body: { enabled: null } }),
      422,
      'validation_failed',
    );

    expect((await api.request('DELETE', path)).status).toBe(204);
    expectProblem(await api.get(path), 404, 'not_found');
    expectProblem(await api.request('DELETE', path), 404, 'not_found');
    expectProblem(await api.get('/api/v1/webhook-endpoints/not-a-uuid'), 404, 'not_found');
  });
});

describe('who gets an event: the endpoints enabled when it happened', () => {
  // The workers fan an event out later than it happens (here: at runOnce); what counts
  // is each endpoint's state at the event's time, not at the fan-out's.
  const pause = () => sleep(20); // timestamps are in milliseconds
  const setEnabled = async (endpoint: Endpoint, enabled: boolean) => {
    const path = `/api/v1/webhook-endpoints/${endpoint.id}`;
    expect((await api.request('PATCH', path, { body: { enabled } })).status).toBe(200);
    await pause();
  };

  it('an endpoint disabled when the event happened does not get it, although enabled since', async () => {
    const endpoint = await register('/r/era-disabled', ['order.created']);
    await setEnabled(endpoint, false);
    await placeOrder();
    await pause();
    await setEnabled(endpoint, true);

    await worker.runOnce();

    expect((await deliveriesOf(endpoint.id)).data).toEqual([]);
    expect(receiver.receipts('/r/era-disabled')).toEqual([]);
  });

  it('an endpoint created after the event does not get it', async () => {
    await placeOrder();
    await pause();
    const endpoint = await register('/r/era-late', ['order.created']);

    await worker.runOnce();

    expect((await deliveriesOf(endpoint.id)).data).toEqual([]);
  });

  it('an endpoint disabled after the event has its delivery, dead, to resend once enabled', async () => {
    const endpoint = await register('/r/era-enabled', ['order.created']);
    await pause();
    const order = await placeOrder();
    await pause();
    await setEnabled(endpoint, false);

    await worker.runOnce();

    const [dead] = (await deliveriesOf(endpoint.id)).data;
    expect(dead).toMatchObject({ status: 'dead', attemptCount: 0, eventType: 'order.created' });
    expect(receiver.receipts('/r/era-enabled')).toEqual([]);
    await setEnabled(endpoint, true);
    const retry = await api.post(
      `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${dead.id}/retries`,
      undefined,
    );
    expect(retry.status).toBe(202);
    await deliverUntil(() => receiver.receipts('/r/era-enabled').length === 1);
    const [receipt] = receiver.receipts('/r/era-enabled');
    expect(JSON.parse(receipt.body).data.object.id).toBe(order.id);
  });
});

describe('delivering', () => {
  it('POSTs order.created, signed per Standard Webhooks, with the order as /api/v1 shows it', async () => {
    const endpoint = await register('/r/orders', ['order.created']);
    const order = await placeOrder();

    await deliverUntil(() => receiver.receipts('/r/orders').length === 1);

    const [receipt] = receiver.receipts('/r/orders');
    const verified = WebhookReceiver.verify(receipt, endpoint.secret) as any;
    const shown = await api.get(`/api/v1/orders/${order.id}`);
    expect(verified).toEqual({
      id: receipt.headers['webhook-id'],
      type: 'order.created',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      data: { object: shown.body },
    });
    expect(Object.keys(verified)).toEqual(['id', 'type', 'createdAt', 'data']);
    expect(receipt.headers['content-type']).toBe('application/json');
    expect(Number(receipt.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(signatures(receipt)).toEqual([expect.stringMatching(/^v1,/)]);

    // the same event, byte for byte, in the events feed
    const event = await api.get(`/api/v1/events/${verified.id}`);
    expect(event.body).toEqual(verified);

    const { data } = await deliveriesOf(endpoint.id);
    expect(data).toEqual([
      expect.objectContaining({
        endpointId: endpoint.id,
        eventId: verified.id,
        eventType: 'order.created',
        status: 'succeeded',
        attemptCount: 1,
        nextAttemptAt: null,
        lastStatusCode: 204,
        attempts: [
          {
            attempt: 1,
            at: expect.any(String),
            succeeded: true,
            statusCode: 204,
            error: null,
            latencyMs: expect.any(Number),
            responseExcerpt: null,
          },
        ],
      }),
    ]);
  });

  it('delivers only the subscribed types, and to `*` every type', async () => {
    const statusOnly = await register('/r/status-only', ['order.status_changed']);
    const everything = await register('/r/everything', ['*']);
    const order = await placeOrder();
    await api.request('PATCH', `/api/v1/orders/${order.id}/status`, {
      body: { status: 'confirmed' },
    });

    await deliverUntil(
      () =>
        receiver.receipts('/r/everything').length === 2 &&
        receiver.receipts('/r/status-only').length === 1,
    );

    const [changed] = receiver.receipts('/r/status-only');
    expect(WebhookReceiver.verify(changed, statusOnly.secret)).toMatchObject({
      type: 'order.status_changed',
      data: { object: { id: order.id, status: 'confirmed', version: 2 } },
    });
    const types = receiver
      .receipts('/r/everything')
      .map((r) => (WebhookReceiver.verify(r, everything.secret) as { type: string }).type);
    expect(types.sort()).toEqual(['order.created', 'order.status_changed']);
  });

  it('retries a 500 after the scheduled wait and lists both attempts', async () => {
    receiver.script('/r/flaky', (_r, n) =>
      n === 1 ? { status: 500, body: 'database is down' } : { status: 200, body: 'ok' },
    );
    const endpoint = await register('/r/flaky', ['order.created']);
    await placeOrder();

    await deliverUntil(() => receiver.receipts('/r/flaky').length === 1);
    const [first] = (await deliveriesOf(endpoint.id)).data;
    expect(first).toMatchObject({
      status: 'failed',
      attemptCount: 1,
      lastStatusCode: 500,
      lastResponseExcerpt: 'database is down',
    });
    // WEBHOOK_RETRY_SCHEDULE=1,1: the retry is due a second after the failure
    expect(
      new Date(first.nextAttemptAt).getTime() - new Date(first.lastAttemptAt).getTime(),
    ).toBeGreaterThan(500);
    expect((await endpoint_(endpoint.id)).failingSince).toEqual(expect.any(String));

    await deliverUntil(() => receiver.receipts('/r/flaky').length === 2);

    const receipts = receiver.receipts('/r/flaky');
    expect(receipts[1].headers['webhook-id']).toBe(receipts[0].headers['webhook-id']);
    for (const receipt of receipts) WebhookReceiver.verify(receipt, endpoint.secret);
    const [delivery] = (await deliveriesOf(endpoint.id)).data;
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2, nextAttemptAt: null });
    expect(
      delivery.attempts.map((a: any) => [a.attempt, a.statusCode, a.succeeded, a.responseExcerpt]),
    ).toEqual([
      [1, 500, false, 'database is down'],
      [2, 200, true, 'ok'],
    ]);
    // a success ends the failing streak
    expect((await endpoint_(endpoint.id)).failingSince).toBeNull();
  });

  it('bumps version, ETag and updatedAt when a failure sets failingSince and a success clears it, not on a repeat failure', async () => {
    let healthy = false;
    receiver.script('/r/streak', () => (healthy ? { status: 200 } : { status: 500 }));
    const endpoint = await register('/r/streak', ['order.created']);
    const path = `/api/v1/webhook-endpoints/${endpoint.id}`;
    const before = await api.get(path);
    expect(before.headers.get('etag')).toBe('"1"');

    await placeOrder();
    await deliverUntil(() => receiver.receipts('/r/streak').length === 1);

    // the failure set failingSince: a change, so the cached copy is stale
    const failing = await api.get(path, { headers: { 'If-None-Match': '"1"' } });
    expect(failing.status).toBe(200);
    expect(failing.headers.get('etag')).toBe('"2"');
    expect(failing.body).toMatchObject({ failingSince: expect.any(String), version: 2 });
    expect(new Date(failing.body.updatedAt).getTime()).toBeGreaterThan(
      new Date(before.body.updatedAt).getTime(),
    );
    // an admin's If-Match from before the worker's change is stale now
    expectProblem(
      await api.request('PATCH', path, {
        body: { description: 'stale' },
        headers: { 'If-Match': '"1"' },
      }),
      412,
      'precondition_failed',
    );

    // a second failure continues the streak: failingSince stays, and so does the version
    await deliverUntil(() => receiver.receipts('/r/streak').length === 2);
    const still = await api.get(path, { headers: { 'If-None-Match': '"2"' } });
    expect(still.status).toBe(304);
    expect((await api.get(path)).body).toMatchObject({
      failingSince: failing.body.failingSince,
      version: 2,
    });

    healthy = true;
    await deliverUntil(() => receiver.receipts('/r/streak').length === 3);
    const recovered = await api.get(path, { headers: { 'If-None-Match': '"2"' } });
    expect(recovered.status).toBe(200);
    expect(recovered.headers.get('etag')).toBe('"3"');
    expect(recovered.body).toMatchObject({ failingSince: null, version: 3 });
    // a PATCH with the current If-Match still goes through
    const patched = await api.request('PATCH', path, {
      body: { description: 'fresh' },
      headers: { 'If-Match': '"3"' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'fresh', version: 4 });
  });

  it('gives up after the schedule (dead), and a manual retry sends it again', async () => {
    let healthy = false;
    receiver.script('/r/down', () => (healthy ? { status: 200 } : { status: 503 }));
    const endpoint = await register('/r/down', ['order.created']);
    await placeOrder();

    // the first attempt and one retry per entry of WEBHOOK_RETRY_SCHEDULE=1,1
    await deliverUntil(() => receiver.receipts('/r/down').length === 3);
    await worker.runOnce();
    const [dead] = (await deliveriesOf(endpoint.id)).data;
    expect(dead).toMatchObject({ status: 'dead', attemptCount: 3, nextAttemptAt: null });
    await sleep(1200);
    await worker.runOnce();
    expect(receiver.receipts('/r/down')).toHaveLength(3);
    expect((await deliveriesOf(endpoint.id, '?status=dead')).data).toHaveLength(1);
    expect((await deliveriesOf(endpoint.id, '?status=succeeded')).data).toHaveLength(0);

    healthy = true;
    const retry = await api.post(
      `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${dead.id}/retries`,
      undefined,
    );
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: dead.id, status: 'pending', attemptCount: 3 });

    await deliverUntil(() => receiver.receipts('/r/down').length === 4);
    const one = await api.get(`/api/v2/webhook-endpoints/${endpoint.id}/deliveries/${dead.id}`);
    expect(one.body).toMatchObject({ status: 'succeeded', attemptCount: 4 });
    expect(one.body.attempts.map((a: any) => a.statusCode)).toEqual([503, 503, 503, 200]);
    expectProblem(
      await api.post(
        `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${randomUUID()}/retries`,
        undefined,
      ),
      404,
      'not_found',
    );
  });

  it('disables the endpoint on a 410 Gone and delivers nothing more to it', async () => {
    receiver.script('/r/gone', () => ({ status: 410 }));
    const endpoint = await register('/r/gone', ['order.created']);
    await placeOrder();

    await deliverUntil(() => receiver.receipts('/r/gone').length === 1);

    expect(await endpoint_(endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
      version: 2,
    });
    expect((await deliveriesOf(endpoint.id)).data[0]).toMatchObject({
      status: 'dead',
      lastStatusCode: 410,
    });
    await placeOrder();
    await worker.runOnce();
    await worker.runOnce();
    expect(receiver.receipts('/r/gone')).toHaveLength(1);
    expect((await deliveriesOf(endpoint.id)).data).toHaveLength(1);
    const retry = await api.post(
      `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${(await deliveriesOf(endpoint.id)).data[0].id}/retries`,
      undefined,
    );
    expectProblem(retry, 409, 'conflict');
  });

  it('disables an endpoint whose attempts have all failed for WEBHOOK_DISABLE_AFTER_S', async () => {
    receiver.script('/r/failing', () => ({ status: 500 }));
    const endpoint = await register('/r/failing', ['order.created']);
    // its failing streak began longer ago than WEBHOOK_DISABLE_AFTER_S (default 5 days)
    await db.query(
      `UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE id = $1`,
      [endpoint.id],
    );
    await placeOrder();
    await placeOrder();

    await sleep(DEFAULT_TUNING.failingSweepMs + 100);
    await worker.runOnce();

    expect(await endpoint_(endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    // the events came before it was disabled: their deliveries are in the log, dead, and
    // nothing is sent
    const { data } = await deliveriesOf(endpoint.id);
    expect(data.map((d) => d.status)).toEqual(['dead', 'dead']);
    await sleep(1200);
    await worker.runOnce();
    expect(receiver.receipts('/r/failing')).toHaveLength(0);
  });

  it('disables an endpoint failing for WEBHOOK_DISABLE_AFTER_S when no attempt is due', async () => {
    receiver.script('/r/quiet', () => ({ status: 500 }));
    const endpoint = await register('/r/quiet', ['order.created']);
    await placeOrder();
    await deliverUntil(() => receiver.receipts('/r/quiet').length >= 1);
    const [failed] = (await deliveriesOf(endpoint.id)).data;
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 1 });
    // The streak began longer ago than WEBHOOK_DISABLE_AFTER_S (default 5 days) and the
    // next retry is far off: no attempt will fail to disable it.
    await db.query(
      `UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE id = $1`,
      [endpoint.id],
    );
    await db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 day' WHERE id = $1`,
      [failed.id],
    );
    const before = await endpoint_(endpoint.id);
    expect(before.enabled).toBe(true);

    await sleep(DEFAULT_TUNING.failingSweepMs + 100);
    await worker.runOnce();

    const after = await endpoint_(endpoint.id);
    expect(after).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
      version: before.version + 1,
    });
    const { data } = await deliveriesOf(endpoint.id);
    expect(data.map((d) => [d.id, d.status])).toEqual([[failed.id, 'dead']]);
    expect(receiver.receipts('/r/quiet')).toHaveLength(1);
  });

  it('re-checks the address at delivery time and sends nothing to a private one', async () => {
    // As if DNS had changed since registration: the stored URL now points at loopback.
    const strictDb = strict.app.get(DataSource);
    const id = randomUUID();
    await strictDb.query(
      `INSERT INTO webhook_endpoints (id, url, event_types, secret) VALUES ($1, $2, $3, $4)`,
      [id, receiver.url('/r/rebound'), ['*'], 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6JoNkELjtFA='],
    );
    const product = await stockedProduct(strict, 1);
    await createOrder(strict, [{ sku: product.sku, quantity: 1 }]);

    await strict.app.get(WebhookWorker).runOnce();

    expect(receiver.receipts('/r/rebound')).toHaveLength(0);
    const { body } = await strict.get(`/api/v1/webhook-endpoints/${id}/deliveries`);
    expect(body.data[0]).toMatchObject({ status: 'failed', attemptCount: 1, lastStatusCode: null });
    expect(body.data[0].lastError).toMatch(/loopback/);
  });

  it('pages the delivery log with cursors', async () => {
    const endpoint = await register('/r/pages', ['order.created']);
    await placeOrder();
    await placeOrder();
    await placeOrder();
    await deliverUntil(() => receiver.receipts('/r/pages').length === 3);

    const first = await api.get(`/api/v2/webhook-endpoints/${endpoint.id}/deliveries?limit=2`);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.pagination).toMatchObject({ total: 3, limit: 2 });
    const next = await fetch(first.body.pagination.next, { headers: { 'X-API-Key': ADMIN_KEY } });
    const second = (await next.json()) as { data: { id: string }[] };
    expect(second.data).toHaveLength(1);
    const ids = [...first.body.data, ...second.data].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(3);
    expectProblem(
      await api.get(`/api/v1/webhook-endpoints/${randomUUID()}/deliveries`),
      404,
      'not_found',
    );
  });
});

describe('secret rotation', () => {
  it('shows the new secret once and signs with both secrets for the overlap', async () => {
    const endpoint = await register('/r/rotation', ['order.created']);

    const rotated = await api.post(
      `/api/v1/webhook-endpoints/${endpoint.id}/secret-rotations`,
      undefined,
    );

    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const overlap = new Date(rotated.body.previousSecretExpiresAt).getTime() - Date.now();
    expect(overlap).toBeGreaterThan(23.9 * 3600_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000);
    const shown = await api.get(`/api/v1/webhook-endpoints/${endpoint.id}`);
    expect(shown.body.secret).toBeUndefined();
    expect(shown.body.previousSecretExpiresAt).toBe(rotated.body.previousSecretExpiresAt);

    await placeOrder();
    await deliverUntil(() => receiver.receipts('/r/rotation').length === 1);

    const [receipt] = receiver.receipts('/r/rotation');
    expect(signatures(receipt)).toHaveLength(2);
    expect(WebhookReceiver.verify(receipt, rotated.body.secret)).toMatchObject({
      type: 'order.created',
    });
    expect(WebhookReceiver.verify(receipt, endpoint.secret)).toMatchObject({
      type: 'order.created',
    });
    expect(() =>
      WebhookReceiver.verify(receipt, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6JoNkELjtFA='),
    ).toThrow();
  });

  it('signs with the new secret alone once the overlap is over', async () => {
    const endpoint = await register('/r/rotated', ['order.created']);
    const rotated = await api.post(
      `/api/v1/webhook-endpoints/${endpoint.id}/secret-rotations`,
      undefined,
    );
    await db.query(
      `UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
      [endpoint.id],
    );

    await placeOrder();
    await deliverUntil(() => receiver.receipts('/r/rotated').length === 1);

    const [receipt] = receiver.receipts('/r/rotated');
    expect(signatures(receipt)).toHaveLength(1);
    WebhookReceiver.verify(receipt, rotated.body.secret);
    expect(() => WebhookReceiver.verify(receipt, endpoint.secret)).toThrow();
    expect((await endpoint_(endpoint.id)).previousSecretExpiresAt).toBeNull();
  });
});

describe('shutdown', () => {
  it('releases the lease of an attempt still in flight when the grace period ends', async () => {
    receiver.script('/r/slow', () => ({ status: 200, delayMs: 5000 }));
    const endpoint = await register('/r/slow', ['order.created']);
    await placeOrder();
    worker.tune({ shutdownGraceMs: 200 });

    const round = worker.runOnce();
    await waitFor(() => receiver.receipts('/r/slow').length === 1);
    await worker.stop();
    const summary = await round;

    expect(summary).toMatchObject({ claimed: 1, attempted: 0, released: 1 });
    const [delivery] = await db.query(
      `SELECT status, attempt_count, locked_until, lease_token FROM webhook_deliveries WHERE endpoint_id = $1`,
      [endpoint.id],
    );
    expect(delivery).toEqual({
      status: 'pending',
      attempt_count: 0,
      locked_until: null,
      lease_token: null,
    });
  });
});

async function endpoint_(id: string) {
  return (await api.get(`/api/v1/webhook-endpoints/${id}`)).body;
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}
