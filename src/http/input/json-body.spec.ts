import { MAX_BODY_DEPTH, parseJsonBody, TOO_DEEP_MESSAGE } from './json-body';
import { Problem } from '../problems/problem';
import { NUL_MESSAGE } from './nul-character';

function refusal(text: string): Problem {
  try {
    parseJsonBody(text);
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

/** `depth` arrays in one another: `[[...]]`. */
const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** `depth` objects in one another: `{"a":{"a":...1...}}`. */
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('parseJsonBody', () => {
  it('reads an empty body as no body', () => {
    expect(parseJsonBody('')).toBeUndefined();
  });

  it('returns the parsed value of an acceptable body, a byte order mark aside', () => {
    const body = { sku: 'A', lines: [{ sku: 'B', quantity: 2 }], note: null, proto: '__proto__' };

    expect(parseJsonBody(JSON.stringify(body))).toEqual(body);
    expect(parseJsonBody(`\ufeff${JSON.stringify(body)}`)).toEqual(body);
  });

  it.each([['{'], ['  '], ['{"a":1}x'], ["{'a':1}"]])('refuses %p as invalid_json', (text) => {
    expect(refusal(text)).toMatchObject({ code: 'invalid_json', errors: undefined });
  });

  it(`accepts ${MAX_BODY_DEPTH} levels of nesting and refuses one more`, () => {
    expect(() => parseJsonBody(arrays(MAX_BODY_DEPTH))).not.toThrow();
    expect(() => parseJsonBody(objects(MAX_BODY_DEPTH))).not.toThrow();

    expect(refusal(objects(MAX_BODY_DEPTH + 1))).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: '(body)', message: TOO_DEEP_MESSAGE }],
    });
  });

  it('refuses nesting as deep as a 1 MiB body allows without overflowing the stack', () => {
    expect(refusal(arrays(500_000)).code).toBe('validation_failed');
    expect(refusal(objects(170_000)).code).toBe('validation_failed');
  });

  it('names every string holding U+0000 by its path, keys included', () => {
    const text = '{"a":"\\u0000","b":[1,["x","y\\u0000"]],"c":{"d\\u0000":1},"e":"ok"}';

    const problem = refusal(text);

    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { field: 'a', message: NUL_MESSAGE },
        { field: 'b[1][1]', message: NUL_MESSAGE },
        { field: 'c.d\\u0000', message: NUL_MESSAGE },
      ]),
    );
    expect(problem.errors).toHaveLength(3);
  });

  it('refuses a body that is a string holding U+0000', () => {
    expect(refusal('"\\u0000"').errors).toEqual([{ field: '(body)', message: NUL_MESSAGE }]);
  });

  it('accepts an escaped backslash followed by u0000, which is no NUL', () => {
    expect(parseJsonBody('{"a":"\\\\u0000"}')).toEqual({ a: '\\u0000' });
  });

  it('refuses members that validation never sees, wherever they are, as unknown fields', () => {
    const text =
      '{"__proto__":{"polluted":1},"lines":[{"constructor":{"prototype":{"polluted":1}}}],' +
      '"price":{"prototype":1,"toString":"x"}}';

    const problem = refusal(text);

    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { field: '__proto__', message: 'is not a known field' },
        { field: 'lines[0].constructor', message: 'is not a known field' },
        { field: 'price.prototype', message: 'is not a known field' },
        { field: 'price.toString', message: 'is not a known field' },
      ]),
    );
    expect(problem.errors).toHaveLength(4);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
