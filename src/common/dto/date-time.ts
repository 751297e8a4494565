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
