import { hash } from 'node:crypto';

/**
 * JSON with object members sorted at every depth, so two bodies that differ only in
 * member order or whitespace are the same request. Stored keys hold its digest, so the
 * text must never change for a body (request-hash.spec.ts pins one).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedMembers(value ?? null));
}

/** A copy with every object's members in code-unit order, as JSON.parse gives values. */
function sortedMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedMembers);
  if (value === null || typeof value !== 'object') return value;
  const members = value as Record<string, unknown>;
  // fromEntries defines members, so one named __proto__ stays a member
  return Object.fromEntries(
    Object.keys(members)
      .sort()
      .map((key) => [key, sortedMembers(members[key])]),
  );
}

/**
 * What makes two requests "the same" for an Idempotency-Key: method, path and body. No
 * body and `{}` are one request, as they are everywhere else (docs/api-conventions.md,
 * Formats): many HTTP clients send `{}` where another sends nothing.
 */
export function requestHash(method: string, path: string, body: unknown): string {
  return hash(
    'sha256',
    `${method.toUpperCase()} ${path}\n${canonicalJson(isEmptyObject(body) ? undefined : body)}`,
  );
}

const isEmptyObject = (body: unknown) =>
  body !== null &&
  typeof body === 'object' &&
  !Array.isArray(body) &&
  Object.keys(body).length === 0;
