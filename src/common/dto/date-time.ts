import { applyDecorators } from '@nestjs/common';
import { IsISO8601, IsString, Matches, MaxLength } from 'class-validator';

/** An RFC 3339 date-time with a zone, e.g. 2026-11-21T10:00:00Z or …+01:00. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const MESSAGE = 'must be an RFC 3339 date-time, e.g. 2026-11-21T10:00:00Z';

/** A string field that must be an RFC 3339 date-time naming a real calendar instant. */
export const IsRfc3339 = () =>
  applyDecorators(
    IsString(),
    // 2026-11-21T10:00:00.123456789+01:00
    MaxLength(35),
    Matches(RFC3339, { message: MESSAGE }),
    IsISO8601({ strict: true }, { message: MESSAGE }),
  );

/**
 * The same instant in UTC, its fraction digits kept: RFC 3339 allows offsets up to ±23:59,
 * PostgreSQL's timestamptz input only up to ±15:59, so a filter value is handed to it in
 * UTC. For a value that passed IsRfc3339.
 */
export function rfc3339InUtc(value: string): string {
  const [, seconds, fraction = '', zone] =
    /^(.*T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(value) as RegExpExecArray;
  return `${new Date(`${seconds}${zone}`).toISOString().slice(0, 19)}${fraction}Z`;
}
