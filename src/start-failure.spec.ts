import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { DatabaseError } from 'pg';
import { ConfigError } from './config/app-config';
import { startFailureMessage } from './start-failure';

/** The first error a socket or server emits, as a starting process would meet it. */
async function errorOf(emitter: Server | ReturnType<typeof connect>): Promise<Error> {
  const [error] = (await once(emitter, 'error')) as [Error];
  return error;
}

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** A FATAL error as PostgreSQL sends it while a connection starts, with its SQLSTATE. */
function postgresError(code: string, message: string): DatabaseError {
  const error = new DatabaseError(message, 0, 'error');
  error.severity = 'FATAL';
  error.code = code;
  return error;
}

describe('startFailureMessage', () => {
  it('is the message of a ConfigError, without its stack', () => {
    expect(startFailureMessage(new ConfigError('PORT: must be an integer number'))).toMatch(
      /PORT: must be an integer number$/,
    );
  });

  it('names DATABASE_URL by host, port and database, without credentials, when nothing listens there', async () => {
    const port = await closedPort();
    const error = await errorOf(connect(port, '127.0.0.1'));

    const message = startFailureMessage(error, {
      DATABASE_URL: `postgres://app:secret@127.0.0.1:${port}/commerce`,
    });

    expect(message).toBe(
      `DATABASE_URL: cannot use the database 127.0.0.1:${port}/commerce: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it.each([
    ['3D000', 'database "commerce" does not exist'],
    ['28P01', 'password authentication failed for user "app"'],
  ])('names DATABASE_URL when PostgreSQL refuses the connection (%s)', (code, text) => {
    const message = startFailureMessage(postgresError(code, text), {
      DATABASE_URL: 'postgres://app:secret@db.internal/commerce',
    });

    expect(message).toBe(
      `DATABASE_URL: cannot use the database db.internal:5432/commerce: ${text}`,
    );
  });

  it('leaves an SQL error of a migration, and any error without DATABASE_URL, as it is', async () => {
    const migration = postgresError('42P07', 'relation "products" already exists');
    const port = await closedPort();
    const refused = await errorOf(connect(port, '127.0.0.1'));

    expect(startFailureMessage(migration, { DATABASE_URL: 'postgres://db/commerce' })).toBe(
      migration,
    );
    expect(startFailureMessage(refused, {})).toBe(refused);
    // another service's port is not the database's
    expect(startFailureMessage(refused, { DATABASE_URL: 'postgres://127.0.0.1:1/x' })).toBe(
      refused,
    );
  });

  it('names PORT when another process listens there', async () => {
    const first = createServer().listen(0, '127.0.0.1');
    await once(first, 'listening');
    const { port } = first.address() as AddressInfo;
    try {
      const error = await errorOf(createServer().listen(port, '127.0.0.1'));

      expect(startFailureMessage(error, {})).toBe(`PORT: ${port} is in use by another process`);
    } finally {
      first.close();
    }
  });
});
