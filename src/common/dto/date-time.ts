import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, ValidateBy } from 'class-validator';

/**
 * An RFC 3339 date-time (§5.6) with a zone, e.g. 2026-11-21T10:00:00Z or …+01:00. `T` and
 * `Z` may be lower case (the NOTE of §5.6); whether the date and time exist is checked
 * apart (IsRfc3339), not by this shape.
 */
export const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const MESSAGE = 'must be an RFC 3339 date-time, e.g. 2026-11-21T10:00:00Z';

/**
 * The instants taken, in UTC: years 1 to 9999. Callers hand `Date.toISOString()` text to
 * PostgreSQL, which reads neither what it writes before year 1 (`0000-…`, `-000001-…`:
 * PostgreSQL has no year 0 and counts `BC`) nor after 9999 (`+010000-…`).
 */
const FIRST = '0001-01-01T00:00:00Z';
const LAST = '9999-12-31T23:59:59Z';
const [FIRST_MS, LAST_MS] = [Date.parse(FIRST), Date.parse(LAST)];
const RANGE_MESSAGE = `must be an instant from ${FIRST} to ${LAST}`;

/**
 * A string of `shape` whose content `holds` must accept too (a real day, an instant in
 * range), with one message whatever is wrong: the content rule passes what is not of the
 * shape, so a value is never refused twice. `contentMessage` says why content is refused.
 */
function shapeAndContent(
  name: string,
  shape: RegExp,
  message: string,
  holds: (value: string) => boolean,
  contentMessage: (value: string) => string = () => message,
) {
  return applyDecorators(
    IsString(),
    Matches(shape, { message }),
    ValidateBy({
      name,
      validator: {
        validate: (value) => typeof value !== 'string' || !shape.test(value) || holds(value),
        defaultMessage: (args) => contentMessage(String(args?.value)),
      },
    }),
  );
}

/** A string field that must be an RFC 3339 date-time naming a real instant of years 1–9999 (UTC). */
export const IsRfc3339 = () =>
  applyDecorators(
    ApiProperty({ type: 'string', format: 'date-time' }),
    // 2026-11-21T10:00:00.123456789+01:00
    MaxLength(35),
    shapeAndContent(
      'isRfc3339Instant',
      RFC3339,
      MESSAGE,
      (value) => {
        const instant = parseRfc3339(value);
        return instant !== null && instant.epochMs >= FIRST_MS && instant.epochMs <= LAST_MS;
      },
      (value) => (parseRfc3339(value) === null ? MESSAGE : RANGE_MESSAGE),
    ),
  );

/** An RFC 3339 full-date (§5.6), e.g. 2026-12-31. */
export const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_MESSAGE = 'must be a calendar date YYYY-MM-DD, e.g. 2026-12-31';

/** A string field that must be a date of the calendar. */
export const IsFullDate = () =>
  shapeAndContent('isRealDate', FULL_DATE, DATE_MESSAGE, (value) => {
    const [year, month, day] = value.split('-').map(Number);
    return isRealDate(year, month, day);
  });

/**
 * The same instant in UTC, its fraction digits kept: RFC 3339 allows offsets up to ±23:59,
 * PostgreSQL's timestamptz input only up to ±15:59, so a filter value is handed to it in
 * UTC. For a value that passed IsRfc3339.
 */
export function rfc3339InUtc(value: string): string {
  const instant = parseRfc3339(value);
  if (instant === null) throw new RangeError(`not an RFC 3339 date-time: ${value}`);
  return `${new Date(instant.epochMs).toISOString().slice(0, 19)}${instant.fraction}Z`;
}

/** An instant to the second, in milliseconds since the epoch, and its fraction as sent. */
interface Rfc3339Instant {
  epochMs: number;
  fraction: string;
}

/** Reads an RFC 3339 date-time; null when it has another shape or names no real instant. */
function parseRfc3339(value: string): Rfc3339Instant | null {
  const match = RFC3339.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction = '', zone] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  const utc = zone.length === 1;
  const [offsetHours, offsetMinutes] = utc ? [0, 0] : [zone.slice(1, 3), zone.slice(4)].map(Number);
  const real =
    isRealDate(year, month, day) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  if (!real) return null;
  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear takes the year as it is.
  const local = new Date(Date.UTC(2000, 0, 1, hour, minute, second));
  local.setUTCFullYear(year, month - 1, day);
  const offsetMs = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return { epochMs: local.getTime() - offsetMs, fraction };
}

/** Whether the day exists in the proleptic Gregorian calendar RFC 3339 uses. */
function isRealDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
