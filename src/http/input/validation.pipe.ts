import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { codePointLengthErrors } from './code-point-length';
import { cacheRuleLookups } from './validation-metadata';
import { errorsOnMembers } from '../problems/member-errors';
import { FieldError, Problem, ValidationProblem } from '../problems/problem';

class InvalidInput extends Error {
  constructor(readonly errors: FieldError[]) {
    super('invalid input');
  }
}

/** What `errors[].message` says of a body field no DTO declares. */
export const UNKNOWN_FIELD = 'is not a known field';
const UNKNOWN_QUERY_PARAMETER = 'is not a known query parameter';
/** What a query parameter sent twice (`?status=open&status=paid`) is told. */
const REPEATED_QUERY_PARAMETER = 'must be given once';
/** The `field` of an error about the body as a whole. */
export const BODY_FIELD = '(body)';

/** class-validator's words, said the way every other message is (`$1`: a number). */
const MESSAGE_REWRITES: [RegExp, string][] = [
  [/^property (\S*) should not exist$/, UNKNOWN_FIELD],
  // `lines: [5]`: ValidateNested's own words
  [/^each value in nested property \S+ must be either object or array$/, 'must be an object'],
  [/^All \S+'s elements must be unique$/, 'must not hold the same item twice'],
  [/^must contain at least 1 elements$/, 'must not be empty'],
  [/^must contain at least (\d+) elements$/, 'must hold at least $1 items'],
  [/^must contain no more than (\d+) elements$/, 'must hold at most $1 items'],
];
const REQUIRED = 'is required';

/** class-validator's messages for a value of the wrong JSON type. */
const WRONG_TYPE =
  /^must be (a string|an integer number|a boolean value|a number conforming to the specified constraints|an object|an array)$/;

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    // array members read as `lines[0].sku`, the way services name them too
    const field = /^\d+$/.test(error.property)
      ? `${prefix}[${error.property}]`
      : prefix
        ? `${prefix}.${error.property}`
        : error.property;
    // Absent (JSON has no undefined): what it is missing, not every rule it would have met.
    if (error.value === undefined && error.constraints) return [{ field, message: REQUIRED }];
    const messages = Object.values(error.constraints ?? {}).map((raw) =>
      raw.startsWith(`${error.property} `) ? raw.slice(error.property.length + 1) : raw,
    );
    // A value of the wrong type is told that and nothing else: not the pattern, bounds or
    // members of a value it is not ("sku": 5 was also told the sku pattern, "lines": {}
    // the fields of a line). Two rules that say the same thing (a shape and a calendar
    // check) say it once.
    const wrongType = messages.filter((m) => WRONG_TYPE.test(m));
    const kept = (wrongType.length > 0 ? wrongType : messages).map((message) => {
      const rewrite = MESSAGE_REWRITES.find(([pattern]) => pattern.test(message));
      return rewrite ? message.replace(...rewrite) : message;
    });
    const own = [...new Set(kept)].map((message) => ({ field, message }));
    return wrongType.length > 0 ? own : [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Validation at the edge, once (STYLE.md): unknown fields are refused, values are typed.
 * A bad body is 422 `validation_failed`; a bad query string is 400 `bad_request`
 * (API.md §3, §4), each with `errors` naming the fields. A NUL character was refused
 * before: in the query string before routing (request-target.ts), in a body while it was
 * parsed (json-body.ts).
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    cacheRuleLookups();
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: true },
      exceptionFactory: (errors) => new InvalidInput(flatten(errors)),
    });
  }

  /**
   * Errors of `{ each: true }` rules name the members that fail them; lengths are measured
   * again in code points, as the columns and the documents count.
   */
  protected override async validate(
    object: object,
    options?: ValidatorOptions,
  ): Promise<ValidationError[]> {
    const errors = await super.validate(object, options);
    return errors.length > 0 ? errorsOnMembers(object, errors) : codePointLengthErrors(object);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && !isPlainObject(value)) {
      throw new ValidationProblem([{ field: BODY_FIELD, message: 'must be a JSON object' }]);
    }
    if (metadata.type === 'query') refuseUnseen(value);
    try {
      return withoutAbsentFields(await super.transform(value, metadata));
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      if (metadata.type === 'query') {
        const errors = queryErrors(value as Record<string, unknown>, error.errors);
        throw new Problem(
          'bad_request',
          errors.map((e) => `${e.field || '""'} ${e.message}`).join('; '),
          errors,
        );
      }
      throw new ValidationProblem(error.errors);
    }
  }
}

/**
 * A query's errors as a client reads them: an undeclared name is an unknown parameter,
 * and a parameter sent more than once (an array to the validators) is told that, once,
 * instead of what its rules say of an array.
 */
function queryErrors(query: Record<string, unknown>, errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.flatMap((e) => {
    const name = e.field.split(/[.[]/)[0];
    if (e.message !== UNKNOWN_FIELD && Array.isArray(query[name])) {
      if (seen.has(name)) return [];
      seen.add(name);
      return [{ field: name, message: REPEATED_QUERY_PARAMETER }];
    }
    return [{ ...e, message: e.message === UNKNOWN_FIELD ? UNKNOWN_QUERY_PARAMETER : e.message }];
  });
}

/**
 * Query parameter names that never reach validation (isHiddenFromValidation): 400, each
 * named as an unknown parameter.
 */
function refuseUnseen(query: unknown): void {
  if (!isPlainObject(query)) return;
  const errors: FieldError[] = Object.keys(query)
    .filter(isHiddenFromValidation)
    .map((field) => ({ field, message: UNKNOWN_QUERY_PARAMETER }));
  if (errors.length > 0) {
    throw new Problem(
      'bad_request',
      errors.map((e) => `${e.field} ${e.message}`).join('; '),
      errors,
    );
  }
}

const HIDDEN_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * Member names that no DTO can declare and that validation never sees, so the whitelist
 * cannot refuse them: Nest's ValidationPipe deletes `__proto__`, `prototype` and
 * `constructor` (against prototype pollution), and class-transformer skips a name the
 * new instance already holds a function under (`toString`, `valueOf`, ...). Refused by
 * name instead, as unknown fields (API.md §3), in bodies (json-body.ts) and queries.
 */
export function isHiddenFromValidation(name: string): boolean {
  return HIDDEN_NAMES.has(name);
}

/**
 * DTO classes compile with define semantics, so every declared field is an own property
 * of the instance, `undefined` when the client left it out. Removed here, a field the
 * client omitted is absent, and `{ ...defaults, ...dto }` keeps the defaults (PUT resets).
 */
function withoutAbsentFields(value: unknown): unknown {
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
