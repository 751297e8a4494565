/**
 * PostgreSQL text cannot hold U+0000, so no stored value has one: it is refused where it
 * comes in (bodies: json-body.ts; query strings: request-target.ts; the authorization
 * server's forms and external tokens' `sub`: src/auth), before it could reach a query and
 * fail there as a 500.
 */
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** `text` holds U+0000: no stored value can match it, nor can it be stored. */
export function holdsNul(text: string): boolean {
  return text.includes('\0');
}

/** A name to show in `errors[].field`, with U+0000 written as the escape, not sent raw. */
export function withNulEscaped(name: string): string {
  return holdsNul(name) ? name.replaceAll('\0', '\\u0000') : name;
}
