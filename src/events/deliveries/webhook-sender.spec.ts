import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebhook } from './webhook-sender';

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

describe('sendWebhook', () => {
  let server: Server;
  let port: number;
  let handler: Handler;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => handler(request, response, body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const loopback = [{ address: '127.0.0.1', family: 4 as const }];
  const send = (host = '127.0.0.1', timeoutMs?: number, signal?: AbortSignal) =>
    sendWebhook({
      url: new URL(`http://${host}:${port}/hook`),
      addresses: loopback,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      body: '{"hello":"world"}',
      timeoutMs,
      signal,
    });

  it('posts the body with the headers and reports status, latency and an excerpt', async () => {
    let seen: { method?: string; id?: string | string[]; body?: string } = {};
    handler = (request, response, body) => {
      seen = { method: request.method, id: request.headers['webhook-id'], body };
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    };

    const outcome = await send();

    expect(seen).toEqual({ method: 'POST', id: 'msg_1', body: '{"hello":"world"}' });
    expect(outcome).toEqual({
      statusCode: 200,
      error: null,
      responseExcerpt: 'thanks',
      latencyMs: expect.any(Number),
    });
  });

  it('connects to the checked address whatever the host name resolves to (no second lookup)', async () => {
    handler = (request, response) => response.writeHead(204).end();

    const outcome = await send('receiver.invalid');

    expect(outcome.statusCode).toBe(204);
  });

  it('keeps only the first KiB of a long answer, and reads Retry-After', async () => {
    handler = (_request, response) =>
      response.writeHead(503, { 'retry-after': '120' }).end('x'.repeat(10_000));

    const outcome = await send();

    expect(outcome.statusCode).toBe(503);
    expect(outcome.responseExcerpt).toHaveLength(1024);
    expect(outcome.retryAfterSeconds).toBe(120);
  });

  it('does not follow redirects', async () => {
    handler = (_request, response) =>
      response.writeHead(302, { location: 'http://169.254.169.254/' }).end();

    expect((await send()).statusCode).toBe(302);
  });

  it('gives up after the time-out', async () => {
    handler = () => undefined; // never answers

    const outcome = await send('127.0.0.1', 200);

    expect(outcome).toMatchObject({ statusCode: null, error: 'no answer within 200 ms' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(150);
  });

  it('counts the status that came in time although the body never ends, with what came of it', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial'); // and never ended
    };

    const outcome = await send('127.0.0.1', 300);

    expect(outcome).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'partial' });
    expect(outcome.latencyMs).toBeLessThan(250); // until the status came, not the time-out
  });

  it('reports a refused connection as an error', async () => {
    const outcome = await sendWebhook({
      url: new URL('http://127.0.0.1:1/hook'),
      addresses: loopback,
      headers: {},
      body: '{}',
    });

    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });

  it('stops when aborted and says so', async () => {
    handler = () => undefined;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    const outcome = await send('127.0.0.1', 5000, controller.signal);

    expect(outcome).toMatchObject({ statusCode: null, aborted: true });
  });
});
