import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { IsFullDate, IsRfc3339, rfc3339InUtc } from './date-time';

describe('rfc3339InUtc', () => {
  it.each([
    ['2026-11-25T00:00:00Z', '2026-11-25T00:00:00Z'],
    ['2026-11-25T00:00:00+16:00', '2026-11-24T08:00:00Z'],
    ['2026-11-25T00:00:00-23:59', '2026-11-25T23:59:00Z'],
    ['2026-11-25T10:30:00.123456789+01:00', '2026-11-25T09:30:00.123456789Z'],
    ['2027-01-01T00:15:00.5+00:30', '2026-12-31T23:45:00.5Z'],
    // RFC 3339 §5.6: `t` and `z` may be lower case
    ['2026-01-01t00:00:00z', '2026-01-01T00:00:00Z'],
    ['2026-01-01t10:00:00.25+02:00', '2026-01-01T08:00:00.25Z'],
    // years 0–99 are themselves, not 1900–1999 (Date.UTC's two-digit quirk)
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
    ['0099-12-31T23:59:59Z', '0099-12-31T23:59:59Z'],
    ['0004-02-29T12:00:00Z', '0004-02-29T12:00:00Z'],
    ['0001-01-01T00:30:00-01:00', '0001-01-01T01:30:00Z'],
    ['0001-01-01T00:30:00+00:30', '0001-01-01T00:00:00Z'],
    ['9999-12-31T23:00:00.5-00:59', '9999-12-31T23:59:00.5Z'],
  ])('writes %s as %s, the fraction kept', (value, utc) => {
    expect(rfc3339InUtc(value)).toBe(utc);
  });
});

class Filters {
  @IsRfc3339()
  at: string;
}

class Due {
  @IsFullDate()
  on: string;
}

const errorsOf = (value: unknown) =>
  validateSync(plainToInstance(Filters, { at: value })).flatMap((e) =>
    Object.values(e.constraints ?? {}),
  );

describe('IsRfc3339', () => {
  it.each([
    '2026-11-21T10:00:00Z',
    '2026-11-21t10:00:00z',
    '2026-11-21T10:00:00.123456789+01:00',
    '0001-01-01T00:00:00Z',
    '0001-01-01T23:59:59+23:59',
    '0099-12-31T23:59:59-23:59',
    '9999-12-31T23:59:59.999999999Z',
    '2024-02-29T00:00:00Z',
  ])('accepts %s', (value) => {
    expect(errorsOf(value)).toEqual([]);
  });

  it.each([
    'garbage',
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-01-01 00:00:00Z',
    '2026-02-29T00:00:00Z',
    '0100-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+01:60',
    '2026-01-01T00:00:00.1234567890Z',
  ])('refuses %s with one message', (value) => {
    expect(errorsOf(value)).toEqual(['must be an RFC 3339 date-time, e.g. 2026-11-21T10:00:00Z']);
  });

  it.each(['0000-06-01T00:00:00Z', '0001-01-01T00:00:00+00:01', '9999-12-31T23:59:59-00:01'])(
    'refuses %s, outside years 1 to 9999 in UTC, saying so once',
    (value) => {
      expect(errorsOf(value)).toEqual([
        'must be an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
      ]);
    },
  );
});

describe('IsFullDate', () => {
  const dateErrorsOf = (value: unknown) =>
    validateSync(plainToInstance(Due, { on: value })).flatMap((e) =>
      Object.values(e.constraints ?? {}),
    );

  it.each(['2026-12-31', '2024-02-29', '0001-01-01'])('accepts %s', (value) => {
    expect(dateErrorsOf(value)).toEqual([]);
  });

  it.each(['soon', '2026-02-29', '2026-04-31', '2026-12-31T00:00:00Z'])(
    'refuses %s with one message',
    (value) => {
      expect(dateErrorsOf(value)).toEqual(['must be a calendar date YYYY-MM-DD, e.g. 2026-12-31']);
    },
  );
});
