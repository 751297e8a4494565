import { Transform } from 'class-transformer';

/** `true`/`false` in a query string; anything else stays a string and fails @IsBoolean. */
export const QueryBoolean = () =>
  Transform(({ value }: { value: unknown }) =>
    value === 'true' ? true : value === 'false' ? false : value,
  );

/**
 * Decimal digits in a query string, with or without a minus sign, become a number (so
 * `-1` is told it is below the minimum); anything else (`0x10`, `1e1`, `+5`, ` 5`, `5.0`,
 * which `Number()` would take) stays a string and fails @IsInt: the document says
 * `integer`, and a value means one thing only. More than 15 digits is beyond every
 * bound (and past 16, beyond what a number holds exactly): it becomes the largest safe
 * integer of its sign, so it too is told the bound it breaks.
 */
export const QueryInteger = () =>
  Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string' || !/^-?\d+$/.test(value)) return value;
    if (/^-?\d{1,15}$/.test(value)) return Number(value);
    return (value.startsWith('-') ? -1 : 1) * Number.MAX_SAFE_INTEGER;
  });
