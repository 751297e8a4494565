import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, Problem, ValidationProblem } from './problem';

class InvalidInput extends Error {
  constructor(readonly errors: FieldError[]) {
    super('invalid input');
  }
}

const MESSAGE_REWRITES: [RegExp, string][] = [
  [/^property (\S+) should not exist$/, 'is not a known field'],
];

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    // array members read as `lines[0].sku`, the way services name them too
    const field = /^\d+$/.test(error.property)
      ? `${prefix}[${error.property}]`
      : prefix
        ? `${prefix}.${error.property}`
        : error.property;
    const own = Object.values(error.constraints ?? {}).map((raw) => {
      const rewrite = MESSAGE_REWRITES.find(([pattern]) => pattern.test(raw));
      const message = rewrite
        ? rewrite[1]
        : raw.startsWith(`${error.property} `)
          ? raw.slice(error.property.length + 1)
          : raw;
      return { field, message };
    });
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Validation at the edge, once (STYLE.md): unknown fields are refused, values are typed.
 * A bad body is 422 `validation_failed`; a bad query string is 400 `bad_request`
 * (API.md §3, §4), each with `errors` naming the fields.
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new InvalidInput(flatten(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && !isPlainObject(value)) {
      throw new ValidationProblem([{ field: '(body)', message: 'must be a JSON object' }]);
    }
    try {
      return withoutAbsentFields(await super.transform(value, metadata));
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      if (metadata.type === 'query') {
        const unknown = error.errors.filter((e) => e.message === 'is not a known field');
        for (const e of unknown) e.message = 'is not a known query parameter';
        throw new Problem(
          'bad_request',
          error.errors.map((e) => `${e.field} ${e.message}`).join('; '),
          error.errors,
        );
      }
      throw new ValidationProblem(error.errors);
    }
  }
}

/**
 * DTO classes compile with define semantics, so every declared field is an own property
 * of the instance, `undefined` when the client left it out. Removed here, a field the
 * client omitted is absent, and `{ ...defaults, ...dto }` keeps the defaults (PUT resets).
 */
function withoutAbsentFields(value: unknown): unknown {
  if (isPlainObject(value)) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) if (record[key] === undefined) delete record[key];
  }
  return value;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
