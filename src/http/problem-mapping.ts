import { HttpException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { QueryFailedError } from 'typeorm';
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
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
};

/** SQLSTATEs that mean the database is unreachable or going away: 503, retry later. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006']);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

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
      invalid_json: 'The body is not valid JSON.',
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
  if (error instanceof QueryFailedError) {
    const sqlState = (error.driverError as ErrorLike | undefined)?.code;
    // A value past a column's range (an int4 quantity overflowing): the input's fault.
    if (sqlState === '22003') {
      return new Problem('validation_failed', 'A number in the request is out of range.');
    }
    if (sqlState === '23505') {
      return new Problem('conflict', 'A resource with these values already exists.');
    }
    if (typeof sqlState === 'string' && UNAVAILABLE_SQLSTATES.has(sqlState)) return unavailable();
    return undefined;
  }
  if (code && UNAVAILABLE_ERRNOS.has(code)) return unavailable();
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const mapped = CODE_BY_STATUS[e.statusCode] ?? 'bad_request';
    return new Problem(mapped, typeof e.message === 'string' ? e.message : undefined);
  }
  return undefined;
}

function unavailable(): Problem {
  return new Problem('service_unavailable', 'The database is not reachable.', undefined, {
    'Retry-After': '5',
  });
}
