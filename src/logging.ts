import { ConsoleLogger, LoggerService, LogLevel } from '@nestjs/common';
import type { FastifyServerOptions } from 'fastify';
import type { AppConfig } from './config/app-config';

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

/**
 * Fastify's pino logger writes one JSON line per request with its `reqId` (the
 * X-Request-Id), method, URL, status and latency. Credentials never reach the log.
 */
export function requestLogger(config: AppConfig): FastifyServerOptions['logger'] {
  if (config.logLevel === 'silent') return false;
  return {
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
  };
}
