import { ConfigError } from './config/app-config';

/**
 * SQLSTATE codes that say the database named by DATABASE_URL cannot be used as given:
 * authentication (class 28), no such database, not accepting connections, full.
 * A failing migration's SQL error is not among them: it is shown as it is.
 */
const UNUSABLE_DATABASE = /^(28...|3D000|57P03|53300)$/;

/** What Node's system errors and node-postgres' server errors carry, as far as read here. */
interface FailureFields {
  code?: unknown;
  syscall?: unknown;
  port?: unknown;
  hostname?: unknown;
  severity?: unknown;
  message?: unknown;
}

/**
 * What a process that failed to start prints: one line naming the setting to look at
 * when the cause is one (bad configuration, a database that cannot be reached or used, a
 * port taken), else the error itself, stack and all. DATABASE_URL is named by its host,
 * port and database only, never its credentials.
 */
export function startFailureMessage(error: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  if (error instanceof ConfigError) return error.message;
  const failure = (error ?? {}) as FailureFields;
  if (failure.syscall === 'listen' && failure.code === 'EADDRINUSE') {
    return `PORT: ${String(failure.port)} is in use by another process`;
  }
  if (failure.syscall === 'listen' && failure.code === 'EACCES') {
    return `PORT: ${String(failure.port)} needs privileges this process does not have`;
  }
  const database = databaseOf(env.DATABASE_URL);
  if (!database) return error;
  const unreachable =
    (failure.syscall === 'connect' && failure.port === database.port) ||
    (failure.syscall === 'getaddrinfo' && failure.hostname === database.host);
  const refused =
    failure.severity !== undefined &&
    typeof failure.code === 'string' &&
    UNUSABLE_DATABASE.test(failure.code);
  if (!unreachable && !refused) return error;
  return `DATABASE_URL: cannot use the database ${database.name}: ${String(failure.message)}`;
}

function databaseOf(url: string | undefined) {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    const host = parsed.hostname;
    const port = Number(parsed.port || 5432);
    return { host, port, name: `${host}:${port}${parsed.pathname}` };
  } catch {
    return undefined;
  }
}

/** The end of every entry point's start: says why (startFailureMessage) and exits 1. */
export function exitOnStartFailure(error: unknown): never {
  console.error(startFailureMessage(error));
  process.exit(1);
}
