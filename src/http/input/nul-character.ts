/**
 * PostgreSQL text cannot hold U+0000, so no stored value has one: it is refused where it
 * comes in, in bodies (json-body.ts) and query strings (request-target.ts), before it
 * could reach a query and fail there as a 500.
 */
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** A name to show in `errors[].field`, with U+0000 written as the escape, not sent raw. */
export function withNulEscaped(name: string): string {
  return name.includes('\0') ? name.replaceAll('\0', '\\u0000') : name;
}
