import { ERROR_CODES, ErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * The one error type the HTTP layer understands. Services throw it (or a subclass named
 * for the domain rule) with a code from the catalog; the global filter turns it into an
 * RFC 9457 problem. Services never throw Nest's HttpExceptions.
 */
/**
 * The bounds the documented Problem schema promises (docs/openapi/components.ts). What a
 * problem quotes comes from the client (unknown member names, long paths, hundreds of bad
 * fields), so it is cut to fit, marked with an ellipsis, rather than break the schema.
 */
export const PROBLEM_LIMITS = {
  detail: 5000,
  instance: 2048,
  errors: 100,
  field: 200,
  message: 1000,
} as const;

/** `text` in at most `max` code points: cut, with an ellipsis, when it is longer. */
export function fitted(text: string, max: number): string {
  // code units bound code points from above: most texts are done here
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

/**
 * The one error type the HTTP layer understands. Services throw it (or a subclass named
 * for the domain rule) with a code from the catalog; the global filter turns it into an
 * RFC 9457 problem. Services never throw Nest's HttpExceptions.
 */
export class Problem extends Error {
  readonly status: number;
  readonly detail?: string;
  readonly errors?: FieldError[];

  constructor(
    readonly code: ErrorCode,
    detail?: string,
    errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? ERROR_CODES[code].title);
    this.status = ERROR_CODES[code].status;
    this.detail = detail === undefined ? undefined : fitted(detail, PROBLEM_LIMITS.detail);
    this.errors = errors?.slice(0, PROBLEM_LIMITS.errors).map(({ field, message }) => ({
      field: fitted(field, PROBLEM_LIMITS.field),
      message: fitted(message, PROBLEM_LIMITS.message),
    }));
  }
}

export class NotFoundProblem extends Problem {
  constructor(resource: string, id: string) {
    super('not_found', `No ${resource} with id ${id}.`);
  }
}

export class ValidationProblem extends Problem {
  constructor(errors: FieldError[]) {
    super('validation_failed', errors.map((e) => `${e.field} ${e.message}`).join('; '), errors);
  }
}

export class ConflictProblem extends Problem {
  constructor(detail: string) {
    super('conflict', detail);
  }
}

export class PreconditionFailedProblem extends Problem {
  constructor() {
    super(
      'precondition_failed',
      'If-Match does not match the current ETag of the resource; it was changed since you read it.',
    );
  }
}
