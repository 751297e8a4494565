import { ConsoleLogger, LoggerService, LogLevel } from '@nestjs/common';
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import pino from 'pino';
import type { AppConfig } from './config/app-config';
import { REDACTED, REDACTED_LOG_PATHS, withoutSecrets } from './http/log-redaction';
import { RequestLogController } from './http/request-log';

const NEST_LEVELS: Record<string, LogLevel[]> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/** Nest's own logger: JSON lines in production, readable lines in development. */
export function appLogger(config: AppConfig): LoggerService | false {
  if (config.logLevel === 'silent') return false;
  return new ConsoleLogger({
    json: config.env === 'production',
    logLevels: NEST_LEVELS[config.logLevel],
  });
}

/** Where pino writes its lines: stdout unless given (tests collect them). */
export interface LogDestination {
  write(line: string): void;
}

/**
 * Fastify's pino logger and what it prints per request: one JSON line per completed
 * request (RequestLogController), at LOG_LEVEL, to stdout unless `destination` is given
 * (tests read the lines). Credentials never reach the log: secret headers are redacted
 * wherever a log object carries them, and secret query values in every URL it prints.
 */
export function requestLogging(
  config: AppConfig,
  destination?: LogDestination,
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  const logController = new RequestLogController();
  if (config.logLevel === 'silent') return { logger: false, logController };
  return {
    logger: {
      level: config.logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: REDACTED },
      // Fastify's own lines that show the request (e.g. a failing error handler); any
      // object logged as `req` goes through it, a Fastify request or not
      serializers: {
        req: (request: Partial<Pick<FastifyRequest, 'method' | 'url' | 'ip'>>) => ({
          method: request.method,
          url: request.url === undefined ? undefined : withoutSecrets(request.url),
          remoteAddress: request.ip,
        }),
      },
      // stdout written asynchronously: lines that come while a write is in flight go out
      // together in the next one (a synchronous write per line was a twelfth of the CPU
      // of a GET); pino flushes what is left when the process exits.
      stream: destination ?? pino.destination({ dest: 1, sync: false }),
    },
    logController,
  };
}
