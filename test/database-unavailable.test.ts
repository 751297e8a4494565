import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client, Pool } from 'pg';
import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options';
import { Problem } from '../src/http/problems/problem';
import { toProblem } from '../src/http/problems/problem-mapping';
import { browse, CookieJar } from './support/oauth-browser';
import { expectProblem } from './support/problem';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * API.md §7 and docs/operations.md: while PostgreSQL restarts, requests are answered at
 * once with 503 service_unavailable and Retry-After, never 500. The errors here are the
 * driver's own, produced against a fake server on loopback that behaves as PostgreSQL
 * does while it stops or starts (the soak test, scripts/soak/, saw each of them).
 */

type Behaviour =
  | 'silent'
  | 'close'
  | 'silentOnQuery'
  | { refuseWith: string; message: string }
  | { queryFails: string };

/** A message of the PostgreSQL wire protocol: type byte, int32 length, body. */
function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function errorResponse(code: string, text: string): Buffer {
  const field = (tag: string, value: string) => Buffer.from(`${tag}${value}\0`, 'utf8');
  return message(
    'E',
    Buffer.concat([
      field('S', 'FATAL'),
      field('V', 'FATAL'),
      field('C', code),
      field('M', text),
      Buffer.from([0]),
    ]),
  );
}

const authenticationOk = () => message('R', Buffer.from([0, 0, 0, 0]));
const readyForQuery = () => message('Z', Buffer.from('I'));

interface FakePostgres {
  port: number;
  close(): Promise<void>;
}

const running = new Set<FakePostgres>();
afterAll(async () => {
  await Promise.all([...running].map((fake) => fake.close()));
});

async function fakePostgres(behaviour: Behaviour): Promise<FakePostgres> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let startedUp = false;
    socket.on('data', () => {
      if (behaviour === 'silent') return;
      if (behaviour === 'close') return socket.destroy();
      if (typeof behaviour === 'object' && 'refuseWith' in behaviour) {
        socket.end(errorResponse(behaviour.refuseWith, behaviour.message));
        return;
      }
      if (!startedUp) {
        startedUp = true;
        socket.write(Buffer.concat([authenticationOk(), readyForQuery()]));
        return;
      }
      // the first query: the server stops answering (a partition), or goes down under it
      if (behaviour === 'silentOnQuery') return;
      socket.end(
        errorResponse(behaviour.queryFails, 'terminating connection due to administrator command'),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakePostgres = {
    port: (server.address() as AddressInfo).port,
    close: () => {
      running.delete(fake);
      sockets.forEach((socket) => socket.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  running.add(fake);
  return fake;
}

/** What `run` throws against a fake server that behaves as `behaviour` says. */
async function failureOf(
  behaviour: Behaviour,
  run: (port: number) => Promise<unknown>,
): Promise<unknown> {
  const fake = await fakePostgres(behaviour);
  try {
    await run(fake.port);
  } catch (error) {
    return error;
  } finally {
    await fake.close();
  }
  throw new Error('expected the database call to fail');
}

const connect = (port: number) =>
  new Client({ host: '127.0.0.1', port, user: 'app', database: 'app' }).connect();

function expectUnavailable(problem: Problem | undefined) {
  expect(problem).toBeInstanceOf(Problem);
  expect(problem?.status).toBe(503);
  expect(problem?.code).toBe('service_unavailable');
  expect(Number(problem?.headers['Retry-After'])).toBeGreaterThan(0);
}

describe('a database that cannot be reached is 503 service_unavailable with Retry-After', () => {
  it('maps a refused connection (the server is stopped)', async () => {
    const fake = await fakePostgres('silent');
    await fake.close();
    const error = await connect(fake.port).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expectUnavailable(toProblem(error));
  });

  it('maps 57P03 on connecting (the server is shutting down or starting up)', async () => {
    const error = await failureOf(
      { refuseWith: '57P03', message: 'the database system is shutting down' },
      connect,
    );

    expect((error as { code?: string }).code).toBe('57P03');
    expect(error).not.toBeInstanceOf(QueryFailedError);
    expectUnavailable(toProblem(error));
  });

  it('maps 53300 on connecting (too many connections)', async () => {
    const error = await failureOf(
      { refuseWith: '53300', message: 'sorry, too many clients already' },
      connect,
    );

    expectUnavailable(toProblem(error));
  });

  it.each([
    ['55000', 'database "app" is not currently accepting connections'],
    ['3D000', 'database "app" does not exist'],
    ['28P01', 'password authentication failed for user "app"'],
  ])('maps any refusal on connecting: %s %s', async (code, text) => {
    const error = await failureOf({ refuseWith: code, message: text }, connect);

    expect((error as { code?: string }).code).toBe(code);
    expectUnavailable(toProblem(error));
  });

  it('maps 57P01 on a query (a fast shutdown ends the session), as TypeORM wraps it', async () => {
    const driverError = await failureOf({ queryFails: '57P01' }, async (port) => {
      const client = new Client({ host: '127.0.0.1', port, user: 'app', database: 'app' });
      client.on('error', () => undefined);
      await client.connect();
      await client.query('SELECT 1');
    });

    expect((driverError as { code?: string }).code).toBe('57P01');
    expectUnavailable(toProblem(new QueryFailedError('SELECT 1', [], driverError as Error)));
  });

  it('maps a connection closed under the client without an error code', async () => {
    const error = await failureOf('close', connect);

    expect((error as Error).message).toBe('Connection terminated unexpectedly');
    expectUnavailable(toProblem(error));
    expectUnavailable(toProblem(new QueryFailedError('SELECT 1', [], error as Error)));
  });

  it("maps the pool's connection time-out (a server that does not answer)", async () => {
    const error = await failureOf('silent', async (port) => {
      const pool = new Pool({ host: '127.0.0.1', port, connectionTimeoutMillis: 100 });
      try {
        await pool.query('SELECT 1');
      } finally {
        await pool.end();
      }
    });

    expect((error as Error).message).toMatch(/timeout/);
    expectUnavailable(toProblem(error));
  });

  it('maps a query left unanswered past its time limit (the server stopped answering)', async () => {
    const started = Date.now();
    const error = await failureOf('silentOnQuery', async (port) => {
      const client = new Client({ host: '127.0.0.1', port, user: 'app', query_timeout: 200 });
      await client.connect();
      try {
        await client.query('SELECT 1');
      } finally {
        void client.end();
      }
    });

    expect((error as Error).message).toBe('Query read timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    expectUnavailable(toProblem(error));
    expectUnavailable(toProblem(new QueryFailedError('SELECT 1', [], error as Error)));
  });

  it("bounds the API's queries by DATABASE_QUERY_TIMEOUT_MS, and not those of migrations", () => {
    const target = { url: 'postgres://app@127.0.0.1/app', embedded: false };

    expect(dataSourceOptions(target, { queryTimeoutMs: 1234 }).extra).toMatchObject({
      query_timeout: 1234,
      keepAlive: true,
    });
    expect(dataSourceOptions(target).extra).not.toHaveProperty('query_timeout');
  });

  it('maps TypeORM refusing to go on with a transaction whose connection failed', () => {
    expectUnavailable(toProblem(new QueryRunnerAlreadyReleasedError()));
    expectUnavailable(toProblem(new QueryRunnerProviderAlreadyReleasedError()));
  });
});

describe('other database errors keep their meaning', () => {
  const failed = (code: string) =>
    new QueryFailedError('SELECT 1', [], Object.assign(new Error('failed'), { code }));

  it('keeps a unique violation a 409 conflict and an out-of-range number a 422', () => {
    expect(toProblem(failed('23505'))?.code).toBe('conflict');
    expect(toProblem(failed('22003'))?.code).toBe('validation_failed');
  });

  it('leaves any other SQL error and a plain error unmapped (a logged 500)', () => {
    expect(toProblem(failed('42P01'))).toBeUndefined();
    expect(toProblem(failed('40001'))).toBeUndefined();
    // on a query, unlike on connecting, 55000 is a bug of ours
    expect(toProblem(failed('55000'))).toBeUndefined();
    expect(toProblem(new Error('Connection terminated'))).toBeUndefined();
    expect(toProblem(new Error('something else'))).toBeUndefined();
  });
});

// PGlite, the embedded database, cannot refuse connections.
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

/** Runs `requests` while the API's database refuses connections, and ends its sessions. */
async function whileRefusingConnections<T>(api: TestApp, requests: () => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    const [{ name }] = await api.app
      .get(DataSource)
      .query<{ name: string }[]>('SELECT current_database() AS name');
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    try {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      return await requests();
    } finally {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    }
  } finally {
    await admin.end();
  }
}

onPostgres('a running API whose database stops taking connections', () => {
  it('answers its requests and readiness 503 with Retry-After, then serves again', async () => {
    const api = await startTestApp();
    try {
      const [list, ready] = await whileRefusingConnections(api, async () => [
        await api.get('/api/v1/products'),
        await api.get('/health/ready', { auth: false }),
      ]);
      const after = await api.get('/api/v1/products');

      for (const response of [list, ready]) {
        expectProblem(response, 503, 'service_unavailable');
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(ready.body.detail).toBe('Not ready: database does not answer.');
      expect(after.status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('answers the authorization server 503 temporarily_unavailable with Retry-After, then serves again', async () => {
    const api = await startTestApp();
    try {
      const registered = await api.post('/api/v1/oauth-clients', {
        name: 'Outage test',
        redirectUris: ['https://client.example.com/callback'],
        public: false,
        scopes: ['products:read'],
      });
      expect(registered.status).toBe(201);
      const { clientId, clientSecret } = registered.body as Record<string, string>;
      const token = () =>
        fetch(`${api.baseUrl}/oauth/token`, {
          method: 'POST',
          headers: {
            Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials&scope=products%3Aread',
        });
      const authorize = () =>
        fetch(
          `${api.baseUrl}/oauth/auth?${new URLSearchParams({
            client_id: clientId,
            redirect_uri: 'https://client.example.com/callback',
            response_type: 'code',
            scope: 'openid products:read',
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          }).toString()}`,
          { redirect: 'manual', headers: { Accept: 'text/html' } },
        );

      // a sign-in begun while the database answered
      const jar = new CookieJar();
      const started = await browse(jar, (await authorize()).url);
      const signIn = new URL(started.headers.get('location') ?? '', api.baseUrl).href;
      expect(started.status).toBe(303);
      expect((await browse(jar, signIn)).status).toBe(200);

      const [refusedToken, refusedAuthorization, refusedSignIn] = await whileRefusingConnections(
        api,
        () => Promise.all([token(), authorize(), browse(jar, signIn)]),
      );
      const after = await token();

      expect(refusedToken.status).toBe(503);
      expect(Number(refusedToken.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refusedToken.json()).toMatchObject({ error: 'temporarily_unavailable' });
      expect(refusedAuthorization.status).toBe(503);
      expect(Number(refusedAuthorization.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refusedAuthorization.text()).toContain('temporarily_unavailable');
      expect(refusedSignIn.status).toBe(503);
      expect(Number(refusedSignIn.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refusedSignIn.text()).toContain('temporarily_unavailable');
      expect(after.status).toBe(200);
    } finally {
      await api.close();
    }
  });
});
