import { Client } from 'pg';
import { freePort, installedProgram, startServer, until } from './programs';

export const pgBouncerProgram = () => installedProgram('pgbouncer');

export interface PgBouncer {
  /** `url` with its host and port replaced by PgBouncer's */
  through(url: string): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of the PostgreSQL server `serverUrl` names, every
 * database passed through, with `serverConnections` server connections per database: fewer
 * than a client's pool, so transactions of different clients share them.
 */
export async function startPgBouncer(
  serverUrl: string,
  serverConnections: number,
): Promise<PgBouncer> {
  const program = pgBouncerProgram();
  if (!program) throw new Error('pgbouncer is not installed');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const files = (folder: string) => ({
    'users.txt': `"${user}" ""\n`,
    'pgbouncer.ini': [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${folder}/users.txt`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 1000',
      '',
    ].join('\n'),
  });
  const bouncer = startServer(program, files, (folder) => [`${folder}/pgbouncer.ini`], 'SIGINT');
  const through = (url: string) => {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  try {
    await until(async () => {
      const client = new Client({ connectionString: through(serverUrl) });
      try {
        await client.connect();
        await client.query('SELECT 1');
      } finally {
        await client.end().catch(() => undefined);
      }
    }, 'pgbouncer did not start');
  } catch (error) {
    await bouncer.stop();
    throw new Error(`${String(error)}\n${bouncer.log()}`, { cause: error });
  }
  return { through, stop: () => bouncer.stop() };
}
