import { ConsoleLogger, LoggerService, LogLevel } from '@nestjs/common';
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import pino, { type Level, type Logger } from 'pino';
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

/** Where pino writes its lines: stdout unless given (tests collect them). */
export interface LogDestination {
  write(line: string): void;
}

/**
 * The process's one pino logger, at LOG_LEVEL, writing JSON lines to stdout unless
 * `destination` is given (tests read the lines); undefined when LOG_LEVEL is `silent`.
 * Credentials never reach the log: secret headers are redacted wherever a log object
 * carries them, and secret query values in every URL it prints.
 */
export function createLogger(config: AppConfig, destination?: LogDestination): Logger | undefined {
  if (config.logLevel === 'silent') return undefined;
  return pino(
    {
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
    },
    // stdout written asynchronously: lines that come while a write is in flight go out
    // together in the next one (a synchronous write per line was a twelfth of the CPU
    // of a GET); pino flushes what is left when the process exits.
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * What Fastify logs per request through `logger`: one JSON line per completed request
 * (RequestLogController).
 */
export function requestLogging(
  logger: Logger | undefined,
): Pick<FastifyServerOptions, 'loggerInstance' | 'logger' | 'logController'> {
  const logController = new RequestLogController();
  return logger ? { loggerInstance: logger, logController } : { logger: false, logController };
}

/**
 * Nest's own logger (boot, module and worker messages). In production its lines go
 * through pino, the app's request logger when given, so one stream has one shape; in
 * development they stay readable.
 */
export function appLogger(
  config: AppConfig,
  logger: Logger | undefined = config.env === 'production' ? createLogger(config) : undefined,
): LoggerService | false {
  if (config.logLevel === 'silent') return false;
  if (config.env === 'production' && logger) {
    return withoutStartFailureDump(new PinoNestLogger(logger));
  }
  return withoutStartFailureDump(new ConsoleLogger({ logLevels: NEST_LEVELS[config.logLevel] }));
}

/**
 * Nest logs an error that stops the app from being built (a provider's factory threw,
 * the database did not answer) as `ExceptionHandler`, stack and all, and then hands it to
 * the entry point, which says what failed (start-failure.ts): in one line naming the
 * setting when it can, else the whole error. Nest's copy is left out, so the reason is
 * said once, and last.
 */
function withoutStartFailureDump(logger: LoggerService): LoggerService {
  const error = logger.error.bind(logger);
  logger.error = (message: unknown, ...params: unknown[]) => {
    if (params.at(-1) !== 'ExceptionHandler') error(message, ...params);
  };
  return logger;
}

/**
 * Nest's LoggerService on pino: Nest's context becomes a `context` field. Written here
 * rather than taken from nestjs-pino, whose logger comes with its own pino-http request
 * logging (Fastify's logController already writes those lines) and an AsyncLocalStorage
 * context per request, a cost on every request on Node.js 20.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    // Nest passes (message, stack?, context?); a stack is kept as `stack`
    this.write('error', message, params, true);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[], withStack = false): void {
    if (!this.logger.isLevelEnabled(level)) return;
    // Nest appends the logger's context as the last argument
    const context = typeof params.at(-1) === 'string' ? (params.at(-1) as string) : undefined;
    const rest = context === undefined ? params : params.slice(0, -1);
    const fields: Record<string, unknown> = { context };
    const [first] = rest;
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      // `logger.error({ err, ... }, 'what happened')`: pino's own argument order
      this.logger[level]({ ...fields, ...message }, typeof first === 'string' ? first : undefined);
    } else {
      if (withStack && typeof first === 'string') fields.stack = first;
      this.logger[level](fields, String(message));
    }
  }
}
