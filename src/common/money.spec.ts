import { formatMoney, isCurrency, isFieldError, minorDigits, parseMoney } from './money';

describe('minorDigits and isCurrency', () => {
  it.each([
    ['EUR', 2],
    ['USD', 2],
    ['JPY', 0],
    ['KWD', 3],
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
  ])('reads "%s" %s as %p minor units of scale %i', (amount, currency, minor, scale) => {
    expect(parseMoney(amount, currency, 'price')).toEqual({ minor, scale, currency });
  });

  it('reads the largest amount exactly, with no floating-point error', () => {
    const money = parseMoney('999999999999999.99', 'EUR', 'price');

    expect(money).toEqual({ minor: 99999999999999999n, scale: 2, currency: 'EUR' });
    // a double cannot hold it: 17 significant digits
    expect(String(Number('999999999999999.99') * 100)).not.toBe('99999999999999999');
  });

  it('refuses an amount with more than 15 integer digits', () => {
    expect(parseMoney('1000000000000000.00', 'EUR', 'price')).toEqual({
      field: 'price',
      message: expect.any(String),
    });
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
  ])('refuses "%s" in %s with an error on the given field', (amount, currency) => {
    const result = parseMoney(amount, currency, 'unitPrice');

    expect(isFieldError(result)).toBe(true);
    expect(result).toEqual({ field: 'unitPrice', message: expect.stringContaining(currency) });
  });

  it('names the number of fraction digits the currency wants', () => {
    expect(parseMoney('19.9', 'EUR', 'price')).toEqual({
      field: 'price',
      message: expect.stringContaining('2 fraction digits'),
    });
    expect(parseMoney('1.5', 'JPY', 'price')).toEqual({
      field: 'price',
      message: expect.stringContaining('whole number'),
    });
  });

  it.each(['QQQ', 'eur', 'EURO', ''])('refuses the unknown currency "%s" on `currency`', (code) => {
    expect(parseMoney('19.99', code, 'price')).toEqual({
      field: 'currency',
      message: 'must be an ISO 4217 currency code',
    });
  });

  it('tells a parsed amount from a field error', () => {
    expect(isFieldError(parseMoney('1.00', 'EUR', 'price'))).toBe(false);
    expect(isFieldError(parseMoney('1.0', 'EUR', 'price'))).toBe(true);
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
  ])('round-trips "%s" %s through parseMoney unchanged', (amount, currency) => {
    const money = parseMoney(amount, currency, 'price');
    if (isFieldError(money)) throw new Error(`not parsed: ${money.message}`);

    expect(formatMoney(money.minor, money.scale)).toBe(amount);
  });
});
