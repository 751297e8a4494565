import { errorCodes, type FastifyInstance } from 'fastify';
import { FieldError, Problem, PROBLEM_LIMITS, ValidationProblem } from '../problems/problem';
import { NUL_MESSAGE, withNulEscaped } from './nul-character';
import { BODY_FIELD, isHiddenFromValidation, UNKNOWN_FIELD } from './validation.pipe';

const { FST_ERR_CTP_INVALID_MEDIA_TYPE } = errorCodes;

/**
 * How deep objects and arrays may nest in a body. No resource comes near it (an order
 * line is at depth 3); it keeps class-transformer, which recurses, far from the stack's
 * end. docs/api-conventions.md states it.
 */
export const MAX_BODY_DEPTH = 32;
export const TOO_DEEP_MESSAGE = `must not nest objects and arrays more than ${MAX_BODY_DEPTH} levels deep`;

/**
 * The parser of `application/json` bodies, in place of Fastify's (API.md §1, §3, §7):
 *
 * - an empty body is no body (many clients send the content type on every request);
 * - a body that is not UTF-8 is `400 invalid_json` (RFC 8259 §8.1): decoding it with
 *   replacement characters, as Fastify's string parser does, would store text the client
 *   never sent;
 * - a body that is not JSON is `400 invalid_json`;
 * - a body that is JSON the service cannot take is `422 validation_failed`, before
 *   anything reads it: nested deeper than MAX_BODY_DEPTH, a NUL character anywhere
 *   (PostgreSQL text cannot hold U+0000), or a member that no DTO can declare and that
 *   validation would never see (isHiddenFromValidation): "is not a known field", as for
 *   any unknown field. Fastify's parser (secure-json-parse) answered `__proto__` and
 *   `constructor.prototype` as invalid JSON, which they are not; Fastify's
 *   `onProtoPoisoning` and `onConstructorPoisoning` options no longer apply.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  // Any other type: no body if empty, as for JSON, else 415. Without it an empty DELETE
  // sent with, say, text/plain was 415 while the same header on a GET was ignored.
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    const length = request.headers['content-length'];
    const empty =
      length === '0' ||
      (length === undefined && request.headers['transfer-encoding'] === undefined);
    if (empty) done(null, undefined);
    else done(new FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
  });
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request, bytes, done) => {
      try {
        refuseContentCoding(request.headers['content-encoding'], (bytes as Buffer).length);
        done(null, parseJsonBody(decodeUtf8(bytes as Buffer)));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

/**
 * Bodies are read as sent: a content coding (`gzip`, `br`) is not undone, so a coded body
 * is `415` (RFC 9110 §8.4.1, §15.5.16) rather than bytes taken for JSON, or a body sent
 * as plain JSON under a coding label taken at its word.
 */
function refuseContentCoding(coding: string | undefined, length: number): void {
  if (coding === undefined || length === 0 || /^\s*identity\s*$/i.test(coding)) return;
  throw new Problem(
    'unsupported_media_type',
    `Content-Encoding ${coding} is not supported; send the body uncoded (identity).`,
  );
}

/** Fails on the first byte sequence that is not UTF-8; a leading byte order mark is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new Problem('invalid_json', 'The body is not valid UTF-8, which JSON must be.');
  }
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) return undefined;
  let value: unknown;
  try {
    // a byte order mark is tolerated, as it was by secure-json-parse (RFC 8259 §8.1)
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch {
    throw new Problem('invalid_json', 'The body is not valid JSON.');
  }
  // JSON can write U+0000 and a lone surrogate only as escapes: without one, no string
  // needs a look.
  const errors = unacceptable(value, textCheck(text));
  if (errors.length > 0) throw new ValidationProblem(errors);
  return value;
}

/** What is wrong with a string or member name, as an error message; undefined if nothing. */
type TextCheck = (value: string) => string | undefined;

/**
 * PostgreSQL text cannot hold U+0000, nor UTF-8 a lone surrogate (`"\ud800"`: half of a
 * pair, no character at all), which would be stored as U+FFFD, text the client never
 * sent. What a string or member name holds of either, as an error message; null when the
 * body escapes neither, so nothing needs a look.
 */
function textCheck(text: string): TextCheck | null {
  const nul = text.includes('\\u0000');
  const surrogate = /\\u[dD][89a-fA-F]/.test(text);
  if (!nul && !surrogate) return null;
  return (value) =>
    nul && value.includes('\0')
      ? NUL_MESSAGE
      : surrogate && LONE_SURROGATE.test(value)
        ? LONE_SURROGATE_MESSAGE
        : undefined;
}

/** In a `u` pattern, a pair is one code point: only a lone half is a surrogate. */
const LONE_SURROGATE = /\p{Surrogate}/u;
const LONE_SURROGATE_MESSAGE =
  'must be Unicode text: a lone surrogate (\\uD800 to \\uDFFF outside a pair) is not';

/** An object or array met in the walk, with what it takes to name it in an error. */
interface Container {
  value: object;
  depth: number;
  parent?: Container;
  key?: string | number;
}

/**
 * One pass over the parsed body, with an explicit stack so that no nesting can overflow
 * the call stack: throws when nesting passes the limit, returns what else is wrong.
 * Strings and member names are looked at only when there is a `check` (textCheck).
 */
function unacceptable(root: unknown, check: TextCheck | null): FieldError[] {
  if (typeof root !== 'object' || root === null) {
    const message = check && typeof root === 'string' ? check(root) : undefined;
    return message ? [{ field: BODY_FIELD, message }] : [];
  }
  const errors: FieldError[] = [];
  const stack: Container[] = [{ value: root, depth: 1 }];
  const member = (parent: Container, key: string | number, value: unknown) => {
    if (typeof value === 'object' && value !== null) {
      stack.push({ value, depth: parent.depth + 1, parent, key });
    } else if (check && typeof value === 'string') {
      const message = check(value);
      if (message) errors.push({ field: pathOf(parent, key), message });
    }
  };

  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.depth > MAX_BODY_DEPTH) {
      throw new ValidationProblem([{ field: BODY_FIELD, message: TOO_DEEP_MESSAGE }]);
    }
    if (errors.length >= PROBLEM_LIMITS.errors) break;
    if (Array.isArray(node.value)) {
      const array = node.value as unknown[];
      for (let index = 0; index < array.length; index++) member(node, index, array[index]);
      continue;
    }
    const object = node.value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const message = isHiddenFromValidation(key) ? UNKNOWN_FIELD : check?.(key);
      if (message) errors.push({ field: pathOf(node, key), message });
      else member(node, key, object[key]);
    }
  }
  return errors;
}

/** `lines[0].sku`, as the validation pipe names fields; built only for an error. */
function pathOf(container: Container, key: string | number): string {
  const keys = [key];
  for (let node = container; node.parent; node = node.parent) {
    keys.push(node.key as string | number);
  }
  let path = '';
  for (let i = keys.length - 1; i >= 0; i--) {
    const step = keys[i];
    if (typeof step === 'number') path += `[${step}]`;
    else path += path === '' ? withNulEscaped(step) : `.${withNulEscaped(step)}`;
  }
  return path;
}
