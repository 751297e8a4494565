import {
  formatMoney,
  hasMinorUnits,
  isCurrency,
  isFieldError,
  MAX_MINOR_DIGITS,
  minorDigits,
  parseMoney,
} from './money';

/** A v1 product body's fields. */
const V1_PRICE = { amount: 'price', currency: 'currency' };

describe('minorDigits and isCurrency', () => {
  it.each([
    ['EUR', 2],
    ['USD', 2],
    ['JPY', 0],
    ['KWD', 3],
    // where ISO 4217 and the runtime's ICU data disagree: ISO 4217 decides
    ['HUF', 2],
    ['COP', 2],
    ['IDR', 2],
    ['IQD', 3],
    ['CLF', 4],
    ['UYW', 4],
    ['XPF', 0],
  ])('%s has %i minor digits', (currency, digits) => {
    expect(minorDigits(currency)).toBe(digits);
  });

  it('knows ISO 4217 codes and nothing else', () => {
    expect(isCurrency('EUR')).toBe(true);
    expect(isCurrency('KWD')).toBe(true);
    expect(isCurrency('QQQ')).toBe(false);
    expect(isCurrency('eur')).toBe(false);
    expect(isCurrency('')).toBe(false);
  });

  it('knows the ISO 4217 codes ICU does not (CLF, UYW) and not the withdrawn ones (HRK)', () => {
    expect(isCurrency('CLF')).toBe(true);
    expect(isCurrency('UYW')).toBe(true);
    expect(isCurrency('HRK')).toBe(false);
  });

  it.each(['XAU', 'XAG', 'XPD', 'XPT', 'XDR', 'XSU', 'XUA', 'XBA', 'XTS', 'XXX'])(
    'knows %s as a code without minor units',
    (code) => {
      expect(isCurrency(code)).toBe(true);
      expect(hasMinorUnits(code)).toBe(false);
      expect(() => minorDigits(code)).toThrow(RangeError);
    },
  );

  it.each(['EUR', 'JPY', 'XPF', 'XOF', 'CLF'])('gives %s minor units', (code) => {
    expect(hasMinorUnits(code)).toBe(true);
  });

  it('has 4 as the most minor digits of any currency, as the amount patterns allow', () => {
    expect(MAX_MINOR_DIGITS).toBe(4);
  });
});

describe('parseMoney', () => {
  it.each([
    ['19.99', 'EUR', 1999n, 2],
    ['0.00', 'EUR', 0n, 2],
    ['0.05', 'EUR', 5n, 2],
    ['1999', 'JPY', 1999n, 0],
    ['0', 'JPY', 0n, 0],
    ['12.345', 'KWD', 12345n, 3],
    ['0.001', 'KWD', 1n, 3],
    ['1000.00', 'HUF', 100000n, 2],
    ['1000.00', 'COP', 100000n, 2],
    ['12.345', 'IQD', 12345n, 3],
    ['1.0000', 'CLF', 10000n, 4],
    ['37.1234', 'UYW', 371234n, 4],
  ])('reads "%s" %s as %p minor units of scale %i', (amount, currency, minor, scale) => {
    expect(parseMoney(amount, currency, V1_PRICE)).toEqual({ minor, scale, currency });
  });

  it('reads the largest amount exactly, with no floating-point error', () => {
    const money = parseMoney('999999999999999.99', 'EUR', V1_PRICE);

    expect(money).toEqual({ minor: 99999999999999999n, scale: 2, currency: 'EUR' });
    // a double cannot hold it: 17 significant digits
    expect(String(Number('999999999999999.99') * 100)).not.toBe('99999999999999999');
  });

  it('refuses an amount with more than 15 integer digits', () => {
    expect(parseMoney('1000000000000000.00', 'EUR', V1_PRICE)).toEqual({
      field: 'price',
      message: expect.any(String),
    });
  });

  it('refuses an amount of 4 fraction digits whose minor units a bigint cannot hold', () => {
    expect(parseMoney('922337203685477.5807', 'CLF', V1_PRICE)).toEqual({
      minor: 2n ** 63n - 1n,
      scale: 4,
      currency: 'CLF',
    });
    expect(parseMoney('922337203685477.5808', 'UYW', V1_PRICE)).toEqual({
      field: 'price',
      message: 'must be at most 922337203685477.5807 for UYW',
    });
    expect(isFieldError(parseMoney('999999999999999.9999', 'CLF', V1_PRICE))).toBe(true);
  });

  it.each([
    ['19.9', 'EUR'],
    ['19.999', 'EUR'],
    ['19', 'EUR'],
    ['19.', 'EUR'],
    ['.99', 'EUR'],
    ['19.99', 'JPY'],
    ['19.0', 'JPY'],
    ['1.23', 'KWD'],
    ['1.2345', 'KWD'],
    ['-1.00', 'EUR'],
    ['+1.00', 'EUR'],
    ['01.00', 'EUR'],
    ['1e3', 'JPY'],
    ['19,99', 'EUR'],
    [' 19.99', 'EUR'],
    ['19.99 ', 'EUR'],
    ['', 'EUR'],
    ['NaN', 'JPY'],
    ['Infinity', 'JPY'],
    ['0x10', 'JPY'],
    ['１９', 'JPY'],
    ['1000', 'HUF'],
    ['1000.0', 'HUF'],
    ['1000', 'IQD'],
    ['1.00', 'IQD'],
    ['1.000', 'CLF'],
    ['1', 'CLF'],
  ])('refuses "%s" in %s with an error on the given field', (amount, currency) => {
    const result = parseMoney(amount, currency, { amount: 'unitPrice', currency: 'currency' });

    expect(isFieldError(result)).toBe(true);
    expect(result).toEqual({ field: 'unitPrice', message: expect.stringContaining(currency) });
  });

  it('names the given amount and currency fields, e.g. those of a v2 money object', () => {
    const v2 = { amount: 'price.amount', currency: 'price.currency' };

    expect(parseMoney('19.9', 'EUR', v2)).toMatchObject({ field: 'price.amount' });
    expect(parseMoney('1000000000000000.00', 'EUR', v2)).toMatchObject({ field: 'price.amount' });
    expect(parseMoney('19.99', 'QQQ', v2)).toMatchObject({ field: 'price.currency' });
    expect(parseMoney('1.00', 'XAU', v2)).toMatchObject({ field: 'price.currency' });
  });

  it('names the number of fraction digits the currency wants', () => {
    expect(parseMoney('19.9', 'EUR', V1_PRICE)).toEqual({
      field: 'price',
      message: expect.stringContaining('2 fraction digits'),
    });
    expect(parseMoney('1.5', 'JPY', V1_PRICE)).toEqual({
      field: 'price',
      message: expect.stringContaining('whole number'),
    });
  });

  it.each(['QQQ', 'eur', 'EURO', ''])('refuses the unknown currency "%s" on `currency`', (code) => {
    expect(parseMoney('19.99', code, V1_PRICE)).toEqual({
      field: 'currency',
      message: 'must be an ISO 4217 currency code',
    });
  });

  it.each(['XAU', 'XAG', 'XDR', 'XTS', 'XXX'])(
    'refuses %s, which ISO 4217 lists without minor units, on `currency`',
    (code) => {
      for (const amount of ['1', '1.00', '1.0000']) {
        expect(parseMoney(amount, code, V1_PRICE)).toEqual({
          field: 'currency',
          message: `must be an ISO 4217 currency code with minor units; ISO 4217 lists ${code} without any`,
        });
      }
    },
  );

  it('names the ISO 4217 digits in the error (HUF 2, IQD 3, CLF 4)', () => {
    expect(parseMoney('1000', 'HUF', V1_PRICE)).toEqual({
      field: 'price',
      message: 'must be a decimal string with 2 fraction digits for HUF, e.g. "19.99"',
    });
    expect(parseMoney('1.00', 'IQD', V1_PRICE)).toEqual({
      field: 'price',
      message: 'must be a decimal string with 3 fraction digits for IQD, e.g. "19.999"',
    });
    expect(parseMoney('1.00', 'CLF', V1_PRICE)).toEqual({
      field: 'price',
      message: 'must be a decimal string with 4 fraction digits for CLF, e.g. "19.9999"',
    });
  });

  it('tells a parsed amount from a field error', () => {
    expect(isFieldError(parseMoney('1.00', 'EUR', V1_PRICE))).toBe(false);
    expect(isFieldError(parseMoney('1.0', 'EUR', V1_PRICE))).toBe(true);
  });
});

describe('formatMoney', () => {
  it.each([
    [1999n, 2, '19.99'],
    [5n, 2, '0.05'],
    [0n, 2, '0.00'],
    [100n, 2, '1.00'],
    [1999n, 0, '1999'],
    [0n, 0, '0'],
    [12345n, 3, '12.345'],
    [1n, 3, '0.001'],
    [99999999999999999n, 2, '999999999999999.99'],
  ])('writes %p minor units of scale %i as "%s"', (minor, scale, expected) => {
    expect(formatMoney(minor, scale)).toBe(expected);
  });

  it('accepts the string pg returns for a bigint column, beyond 2^53 exactly', () => {
    expect(formatMoney('99999999999999999', 2)).toBe('999999999999999.99');
    expect(formatMoney('9007199254740993', 2)).toBe('90071992547409.93');
  });

  it.each([
    ['19.99', 'EUR'],
    ['0.00', 'EUR'],
    ['999999999999999.99', 'EUR'],
    ['123456789012345', 'JPY'],
    ['999999999999999.999', 'KWD'],
    ['1000.00', 'HUF'],
    ['922337203685477.5807', 'CLF'],
  ])('round-trips "%s" %s through parseMoney unchanged', (amount, currency) => {
    const money = parseMoney(amount, currency, V1_PRICE);
    if (isFieldError(money)) throw new Error(`not parsed: ${money.message}`);

    expect(formatMoney(money.minor, money.scale)).toBe(amount);
  });
});
