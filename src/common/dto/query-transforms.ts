import { Transform } from 'class-transformer';

/** `true`/`false` in a query string; anything else stays a string and fails @IsBoolean. */
export const QueryBoolean = () =>
  Transform(({ value }: { value: unknown }) =>
    value === 'true' ? true : value === 'false' ? false : value,
  );
