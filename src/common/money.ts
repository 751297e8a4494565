import { FieldError } from '../http/problem';

const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Money as the database keeps it: integer minor units and the currency's scale. */
export interface StoredMoney {
  minor: bigint;
  scale: number;
  currency: string;
}

export function isCurrency(code: string): boolean {
  return KNOWN_CURRENCIES.has(code);
}

/** ISO 4217 minor digits of `currency` (EUR 2, JPY 0, KWD 3), from the runtime's ICU data. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
    .maximumFractionDigits as number;
}

/**
 * Parses a decimal string with exactly the currency's minor digits ("19.99" EUR, "1999"
 * JPY) into minor units. Returns a field error instead of throwing so callers can gather
 * every problem of a body into one 422.
 */
export function parseMoney(
  amount: string,
  currency: string,
  field: string,
): StoredMoney | FieldError {
  if (!isCurrency(currency)) {
    return { field: 'currency', message: 'must be an ISO 4217 currency code' };
  }
  const scale = minorDigits(currency);
  const pattern =
    scale === 0 ? /^(0|[1-9]\d{0,14})$/ : new RegExp(`^(0|[1-9]\\d{0,14})\\.\\d{${scale}}$`);
  if (!pattern.test(amount)) {
    const shape = scale === 0 ? 'a whole number' : `a decimal string with ${scale} fraction digits`;
    return { field, message: `must be ${shape} for ${currency}, e.g. "${example(scale)}"` };
  }
  return { minor: BigInt(amount.replace('.', '')), scale, currency };
}

export function isFieldError(value: StoredMoney | FieldError): value is FieldError {
  return 'field' in value;
}

/** Minor units back to the wire's decimal string. */
export function formatMoney(minor: bigint | string, scale: number): string {
  const digits = BigInt(minor)
    .toString()
    .padStart(scale + 1, '0');
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

function example(scale: number): string {
  return scale === 0 ? '1999' : `19.${'9'.repeat(scale)}`;
}
