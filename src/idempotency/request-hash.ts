import { createHash } from 'node:crypto';

/**
 * JSON with object members sorted at every depth, so two bodies that differ only in
 * member order or whitespace are the same request.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : v,
  );
}

/**
 * What makes two requests "the same" for an Idempotency-Key: method, path and body. No
 * body and `{}` are one request, as they are everywhere else (docs/api-conventions.md,
 * Formats): many HTTP clients send `{}` where another sends nothing.
 */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(
      `${method.toUpperCase()} ${path}\n${canonicalJson(isEmptyObject(body) ? undefined : body)}`,
    )
    .digest('hex');
}

const isEmptyObject = (body: unknown) =>
  body !== null &&
  typeof body === 'object' &&
  !Array.isArray(body) &&
  Object.keys(body).length === 0;
