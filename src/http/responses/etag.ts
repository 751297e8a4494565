import { createHash } from 'node:crypto';

/**
 * Strong ETags (API.md §5). A single resource's ETag is its `version`, so `If-Match` is
 * compared with the version of the row locked for the update (updateWithLock), with no
 * representation to rebuild. Other GET answers (collections, documents) are tagged by a
 * hash of the body.
 */
export const etagForVersion = (version: number): string => `"${version}"`;

/**
 * The ETag of an answer that carries an integer `version` (a single resource, read or
 * written); undefined for any other answer.
 */
export function versionEtagOf(body: unknown): string | undefined {
  const version = (body as { version?: unknown } | null | undefined)?.version;
  return typeof version === 'number' && Number.isInteger(version)
    ? etagForVersion(version)
    : undefined;
}

export const etagForBody = (body: string | Buffer): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** RFC 9110 §13.1.2: weak comparison for If-None-Match. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/**
 * The versions an `If-Match` header accepts: `undefined` when the header is absent or
 * `*` (any current version), otherwise the listed versions; a tag that is not one of
 * ours (or is weak, which If-Match never matches) contributes none, so it can only fail.
 * Strong comparison is character by character (RFC 9110 §8.8.3.2): only the digits
 * etagForVersion writes name a version, so `"05"` is not the tag `"5"`.
 */
export function versionsFromIfMatch(header: string | undefined): number[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const tag of header.split(',')) {
    const match = /^"(0|[1-9]\d{0,9})"$/.exec(tag.trim());
    if (match) versions.push(Number(match[1]));
  }
  return versions;
}

/**
 * API.md §5's `Cache-Control` of a GET. Every other answer that sets none gets it too
 * (response-hooks.ts): errors and the answers to writes are kept by no shared cache and
 * reused by no client without asking again.
 */
export const REVALIDATE_EACH_TIME = 'private, no-cache';

/** How to reach the headers of an answer `A`: a Fastify reply, or a raw Node response. */
export interface HeaderAccess<A> {
  get(answer: A, name: string): unknown;
  set(answer: A, name: string, value: string): void;
  remove(answer: A, name: string): void;
}

/**
 * API.md §5 for a `200` to a GET, in one place for every server object that sends one:
 * `Cache-Control: private, no-cache`, a strong ETag (the answer's own, else a hash of its
 * body when the body is at hand), and whether `If-None-Match` makes the answer a `304`.
 * For a 304 the headers that describe a body are removed here; the caller sets the status
 * and drops the body.
 */
export function revalidate<A>(
  headers: HeaderAccess<A>,
  answer: A,
  body: unknown,
  ifNoneMatch: string | undefined,
): boolean {
  headers.set(answer, 'Cache-Control', REVALIDATE_EACH_TIME);
  let etag = headers.get(answer, 'etag') as string | undefined;
  if (!etag && (typeof body === 'string' || Buffer.isBuffer(body))) {
    etag = etagForBody(body);
    headers.set(answer, 'ETag', etag);
  }
  if (!etag || !matchesIfNoneMatch(ifNoneMatch, etag)) return false;
  headers.remove(answer, 'Content-Type');
  headers.remove(answer, 'Content-Length');
  return true;
}
