import { HttpException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { DatabaseError } from 'pg';
import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import type { ErrorCode } from './error-codes';
import { Problem } from './problem';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  503: 'service_unavailable',
};

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
};

/**
 * SQLSTATEs that mean the database is unreachable, going away or not taking connections
 * yet: 503, retry later. They arrive on a query (wrapped in QueryFailedError) or on a new
 * connection, where any refusal is 503 (`databaseUnavailable`).
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: a fast shutdown ends every session
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: shutting down, starting up, in recovery
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '53300', // too_many_connections
]);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
/** What pg and pg-pool throw, without a code, when a connection is lost or cannot be had. */
const LOST_CONNECTION_MESSAGES = [
  'Connection terminated unexpectedly', // pg: the socket closed under a query
  'Connection terminated due to connection timeout', // pg-pool: connectionTimeoutMillis
  'timeout exceeded when trying to connect', // pg-pool: no client free within the timeout
  'Client has encountered a connection error and is not queryable', // pg
  'Query read timeout', // pg: no answer within DATABASE_QUERY_TIMEOUT_MS
];

interface ErrorLike {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

/**
 * Translates anything thrown on the request path into a Problem. `undefined` means an
 * unexpected failure: the caller answers 500 and logs it, never leaking the message.
 */
export function toProblem(error: unknown): Problem | undefined {
  if (error instanceof Problem) return error;
  const e = (error ?? {}) as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;

  if (code && FASTIFY_CODES[code]) {
    const mapped = FASTIFY_CODES[code];
    const details: Partial<Record<ErrorCode, string>> = {
      unsupported_media_type: 'Send request bodies as JSON with Content-Type: application/json.',
      payload_too_large: 'The body is larger than 1 MiB.',
    };
    return new Problem(mapped, details[mapped] ?? String(e.message));
  }
  if (error instanceof ThrottlerException) {
    // The budget of API.md §8; Retry-After and the RateLimit headers come from the rate-limit hook.
    return new Problem(
      'rate_limited',
      'The request budget of this caller is used up for the current window; retry after the number of seconds in Retry-After.',
    );
  }
  if (error instanceof HttpException) {
    // Fastify's own errors (body parser, content type) arrive wrapped by Nest.
    const fromCause = error.cause instanceof Error ? toProblem(error.cause) : undefined;
    if (fromCause) return fromCause;
    const mapped = CODE_BY_STATUS[error.getStatus()];
    if (mapped) return new Problem(mapped, mapped === 'not_found' ? undefined : error.message);
    return undefined;
  }
  if (databaseUnavailable(error)) return serviceUnavailable();
  if (error instanceof QueryFailedError) {
    const sqlState = (error.driverError as ErrorLike | undefined)?.code;
    // A value past a column's range (an int4 quantity overflowing): the input's fault.
    if (sqlState === '22003') {
      return new Problem('validation_failed', 'A number in the request is out of range.');
    }
    if (sqlState === '23505') {
      return new Problem('conflict', 'A resource with these values already exists.');
    }
    return undefined;
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const mapped = CODE_BY_STATUS[e.statusCode] ?? 'bad_request';
    return new Problem(mapped, typeof e.message === 'string' ? e.message : undefined);
  }
  return undefined;
}

/**
 * Whether `error` says the database cannot be reached right now (API.md §7: 503 with
 * Retry-After, never a 500): a SQLSTATE or errno of a lost or refused connection, on a
 * query or on connecting; pg's errors without a code for the same; and TypeORM's refusal
 * to go on with a transaction whose connection failed under it (TypeORM releases a query
 * runner when its connection emits an error, e.g. 57P01 between two statements, and the
 * next statement or the COMMIT then finds it released; the server has rolled back).
 */
export function databaseUnavailable(error: unknown): boolean {
  if (
    error instanceof QueryRunnerAlreadyReleasedError ||
    error instanceof QueryRunnerProviderAlreadyReleasedError
  ) {
    return true;
  }
  // PostgreSQL refused a new connection: whatever its reason (not accepting connections,
  // too many clients, the database or its role gone), the request cannot be served now.
  // TypeORM wraps every failed query in QueryFailedError; an unwrapped server error can
  // only come from pg-pool obtaining a connection.
  if (error instanceof DatabaseError) return true;
  const cause = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  // not `instanceof Error`: errors of Node's own sockets may come from another realm
  if (typeof cause !== 'object' || cause === null) return false;
  const { code, message } = cause as ErrorLike;
  if (typeof code !== 'string') {
    return typeof message === 'string' && LOST_CONNECTION_MESSAGES.includes(message);
  }
  return UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code);
}

/** The seconds a client is told to wait before retrying when the database is unreachable. */
export const RETRY_AFTER_S = 5;

export const DATABASE_UNREACHABLE = 'The database is not reachable.';

/** 503: a dependency does not answer right now; retry in a few seconds (API.md §7). */
export function serviceUnavailable(
  detail = DATABASE_UNREACHABLE,
  retryAfterS = RETRY_AFTER_S,
): Problem {
  return new Problem('service_unavailable', detail, undefined, {
    'Retry-After': String(retryAfterS),
  });
}
