import {
  etagForBody,
  etagForVersion,
  matchesIfNoneMatch,
  versionEtagOf,
  versionsFromIfMatch,
} from './etag';

describe('versionEtagOf', () => {
  it('tags an answer by its integer version, and nothing else', () => {
    expect(versionEtagOf({ id: 'x', version: 7 })).toBe('"7"');
    expect(
      [null, undefined, 'text', {}, { version: '7' }, { version: 1.5 }].map(versionEtagOf),
    ).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('etagForVersion', () => {
  it('is the version as a strong, quoted entity tag', () => {
    expect(etagForVersion(1)).toBe('"1"');
    expect(etagForVersion(42)).toBe('"42"');
  });
});

describe('etagForBody', () => {
  it('is strong, quoted and the same for the same body', () => {
    const tag = etagForBody('{"data":[]}');

    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(etagForBody(Buffer.from('{"data":[]}'))).toBe(tag);
  });

  it('differs when the body differs by one character', () => {
    expect(etagForBody('{"total":1}')).not.toBe(etagForBody('{"total":2}'));
  });
});

describe('matchesIfNoneMatch (weak comparison, RFC 9110 §13.1.2)', () => {
  it.each([
    ['the same strong tag', '"3"', '"3"'],
    ['the weak form of the tag', 'W/"3"', '"3"'],
    ['a strong header against a weak tag', '"3"', 'W/"3"'],
    ['a list that contains the tag', '"1", "2", "3"', '"3"'],
    ['a list without spaces', '"1","3"', '"3"'],
    ['a list with the weak form', '"1", W/"3"', '"3"'],
    ['a wildcard', '*', '"3"'],
    ['a wildcard with spaces', ' * ', '"3"'],
    ['a body hash tag', '"abc_-XYZ"', '"abc_-XYZ"'],
  ])('matches %s', (_situation, header, etag) => {
    expect(matchesIfNoneMatch(header, etag)).toBe(true);
  });

  it.each([
    ['no header', undefined, '"3"'],
    ['an empty header', '', '"3"'],
    ['another tag', '"4"', '"3"'],
    ['a tag that only starts the same', '"33"', '"3"'],
    ['a list without the tag', '"1", "2", W/"4"', '"3"'],
    ['an unquoted value', '3', '"3"'],
  ])('does not match %s', (_situation, header, etag) => {
    expect(matchesIfNoneMatch(header, etag)).toBe(false);
  });
});

describe('versionsFromIfMatch', () => {
  it.each([
    ['no header', undefined],
    ['a wildcard', '*'],
    ['a wildcard with spaces', '  *  '],
  ])('sets no precondition for %s', (_situation, header) => {
    expect(versionsFromIfMatch(header)).toBeUndefined();
  });

  it.each([
    ['one version', '"3"', [3]],
    ['a list', '"1", "2","7"', [1, 2, 7]],
    ['a list with a weak tag, which If-Match never matches', '"1", W/"2"', [1]],
    ['only a weak tag', 'W/"3"', []],
    ['a tag that is not a version', '"abc"', []],
    ['an unquoted number', '3', []],
    ['a negative number', '"-1"', []],
    ['a number of 11 digits', '"12345678901"', []],
    // strong comparison is of the tag's characters: "05" is not the tag "5" we issue
    ['a version with a leading zero', '"05", "007"', []],
    ['zero itself', '"0"', [0]],
    ['an empty header', '', []],
    ['a wildcard inside a list', '"1", *', [1]],
  ])('reads %s as the versions %p', (_situation, header, versions) => {
    expect(versionsFromIfMatch(header)).toEqual(versions);
  });
});
