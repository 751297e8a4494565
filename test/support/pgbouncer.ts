import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';

/** Where the `pgbouncer` program is (Debian puts it in /usr/sbin); undefined if nowhere. */
export function pgBouncerProgram(): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const folder of folders.filter(Boolean)) {
    const candidate = join(folder, 'pgbouncer');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface PgBouncer {
  /** `url` with its host and port replaced by PgBouncer's */
  through(url: string): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of the PostgreSQL server `serverUrl` names, every
 * database passed through, with `serverConnections` server connections per database: fewer
 * than a client's pool, so transactions of different clients share them. It refuses to run
 * as root, so a root test run starts it as the `postgres` user (or `nobody`).
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
  const folder = mkdtempSync(join(tmpdir(), 'coa-pgbouncer-'));
  chmodSync(folder, 0o755);
  const file = (name: string, text: string) => {
    writeFileSync(join(folder, name), text, { mode: 0o644 });
    return join(folder, name);
  };
  const users = file('users.txt', `"${user}" ""\n`);
  const config = file(
    'pgbouncer.ini',
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 1000',
      // node-postgres sends no such parameters; listed so a driver that does is not refused
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  const runAs = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  const child = spawn(program, [config], { stdio: ['ignore', 'ignore', 'pipe'], ...runAs });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const through = (url: string) => {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  const stop = async () => {
    await stopProcess(child);
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await answering(through(serverUrl), child);
  } catch (error) {
    await stop();
    throw new Error(`pgbouncer did not start: ${String(error)}\n${log}`, { cause: error });
  }
  return { through, stop };
}

function unprivilegedUser(): { uid: number; gid: number } {
  const entries = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'));
  const entry =
    entries.find((fields) => fields[0] === 'postgres') ??
    entries.find((fields) => fields[0] === 'nobody');
  if (!entry) throw new Error('no user to run pgbouncer as (it refuses root)');
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function answering(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT'); // PgBouncer's immediate shutdown
  });
}
