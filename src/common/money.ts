import { readFileSync } from 'node:fs';
import { data as iso4217 } from 'currency-codes';
import { FieldError } from '../http/problems/problem';

/**
 * ISO 4217 list one, from the `currency-codes` package (pinned: a new version of the list
 * can change which amounts the API accepts): every current code and its minor digits.
 * That package writes 0 for the codes the list gives no minor unit ("N.A.": the metals
 * XAU, XAG, XPD, XPT, funds such as XDR and XSU, XTS for testing, XXX for no currency),
 * so those are read from the list itself, the ISO list-one file the package ships and
 * generates its data from.
 */
const MINOR_DIGITS: ReadonlyMap<string, number> = new Map(iso4217.map((c) => [c.code, c.digits]));
const WITHOUT_MINOR_UNITS: ReadonlySet<string> = codesWithoutMinorUnits();

/** The most minor digits any currency has (CLF, UYW: 4); amount patterns allow no more. */
export const MAX_MINOR_DIGITS = Math.max(
  ...[...MINOR_DIGITS].filter(([code]) => !WITHOUT_MINOR_UNITS.has(code)).map(([, d]) => d),
);

/** The most minor units a bigint column holds. */
const MAX_STORED_MINOR = 2n ** 63n - 1n;

/** Money as the database keeps it: integer minor units and the currency's scale. */
export interface StoredMoney {
  minor: bigint;
  scale: number;
  currency: string;
}

/** A current ISO 4217 code (upper case), with or without minor units. */
export function isCurrency(code: string): boolean {
  return MINOR_DIGITS.has(code);
}

/** Whether ISO 4217 gives `currency` minor units; XAU, XDR, XXX and the like have none. */
export function hasMinorUnits(currency: string): boolean {
  return isCurrency(currency) && !WITHOUT_MINOR_UNITS.has(currency);
}

/**
 * ISO 4217 minor digits of `currency` (EUR 2, JPY 0, KWD 3, HUF 2, CLF 4). A RangeError
 * for a code that is not a currency with minor units: check `hasMinorUnits` first.
 */
export function minorDigits(currency: string): number {
  const digits = MINOR_DIGITS.get(currency);
  if (digits === undefined || WITHOUT_MINOR_UNITS.has(currency)) {
    throw new RangeError(`${currency} is not an ISO 4217 currency with minor units`);
  }
  return digits;
}

/**
 * The fields a request carried an amount and its currency in, as `errors[].field` names
 * them: a v1 body's `price` and `currency`, a v2 money object's `price.amount` and
 * `price.currency`.
 */
export interface MoneyFields {
  amount: string;
  currency: string;
}

/**
 * Parses a decimal string with exactly the currency's minor digits ("19.99" EUR, "1999"
 * JPY) into minor units. Returns a field error, on the field of `fields` that is to blame,
 * instead of throwing so callers can gather every problem of a body into one 422.
 */
export function parseMoney(
  amount: string,
  currency: string,
  fields: MoneyFields,
): StoredMoney | FieldError {
  if (!isCurrency(currency)) {
    return { field: fields.currency, message: 'must be an ISO 4217 currency code' };
  }
  if (!hasMinorUnits(currency)) {
    return {
      field: fields.currency,
      message: `must be an ISO 4217 currency code with minor units; ISO 4217 lists ${currency} without any`,
    };
  }
  const scale = minorDigits(currency);
  const pattern =
    scale === 0 ? /^(0|[1-9]\d{0,14})$/ : new RegExp(`^(0|[1-9]\\d{0,14})\\.\\d{${scale}}$`);
  if (!pattern.test(amount)) {
    const shape = scale === 0 ? 'a whole number' : `a decimal string with ${scale} fraction digits`;
    return {
      field: fields.amount,
      message: `must be ${shape} for ${currency}, e.g. "${example(scale)}"`,
    };
  }
  const minor = BigInt(amount.replace('.', ''));
  if (minor > MAX_STORED_MINOR) {
    // only 4 fraction digits reach it: CLF, UYW above 922337203685477.5807
    return {
      field: fields.amount,
      message: `must be at most ${formatMoney(MAX_STORED_MINOR, scale)} for ${currency}`,
    };
  }
  return { minor, scale, currency };
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

/**
 * The codes whose CcyMnrUnts is "N.A." in the package's copy of ISO 4217 list one. Throws
 * at startup if the file is missing or its shape changed, rather than let XAU through.
 */
function codesWithoutMinorUnits(): Set<string> {
  const xml = readFileSync(require.resolve('currency-codes/iso-4217-list-one.xml'), 'utf8');
  const codes = new Set<string>();
  for (const [, entry] of xml.matchAll(/<CcyNtry>([\s\S]*?)<\/CcyNtry>/g)) {
    const code = /<Ccy>([A-Z]{3})<\/Ccy>/.exec(entry)?.[1];
    if (code !== undefined && /<CcyMnrUnts>N\.A\.<\/CcyMnrUnts>/.test(entry)) codes.add(code);
  }
  if (codes.size === 0 || [...codes].some((code) => !MINOR_DIGITS.has(code))) {
    throw new Error('currency-codes: its ISO 4217 list one is not in the expected shape');
  }
  return codes;
}
