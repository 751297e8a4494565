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
export class Problem extends Error {
  /** Bounds the documented Problem schema promises (`detail` ≤ 5000, ≤ 100 `errors`). */
  static readonly MAX_DETAIL = 5000;
  static readonly MAX_ERRORS = 100;

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
    this.detail =
      detail && detail.length > Problem.MAX_DETAIL
        ? `${detail.slice(0, Problem.MAX_DETAIL - 1)}…`
        : detail;
    this.errors = errors?.slice(0, Problem.MAX_ERRORS);
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
