import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

/** Injection token of the shared ioredis client; its value is `null` when REDIS_URL is unset. */
export const REDIS = Symbol('REDIS');

/** How long a Redis command may take before its caller falls back (ms). */
const COMMAND_TIMEOUT_MS = 500;

/**
 * The one Redis connection of a process (DESIGN.md §2, §6), for state that instances share.
 * Callers must keep serving when Redis is away: commands fail at once instead of queueing
 * while disconnected (no offline queue, no retries per request, a short command timeout),
 * and the client keeps reconnecting in the background, backing off to 5 s.
 */
export function createRedisClient(url: string): Redis {
  const logger = new Logger('Redis');
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    // How long a closing socket may linger before it is destroyed; ioredis arms this timer
    // even for a socket that is already gone, which would hold shutdown up for 2 s.
    disconnectTimeout: 200,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
    // Commands of concurrent requests issued in one tick go out in one write: every
    // request counts its rate limit in Redis, and a socket write is the dearest part.
    enableAutoPipelining: true,
  });
  // Logged once per outage, not once per reconnect attempt.
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(`Redis at ${redactedUrl(url)} is not reachable (${error.message})`);
  });
  client.on('ready', () => {
    if (down) logger.log(`Redis at ${redactedUrl(url)} is reachable again`);
    down = false;
  });
  return client;
}

/** Closes the connection without waiting on a Redis that does not answer. */
export async function closeRedisClient(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    await client.quit().catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
}

function redactedUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
