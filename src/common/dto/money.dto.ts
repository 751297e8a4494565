import { ApiProperty, PickType } from '@nestjs/swagger';
import { IsString, Length, Matches, ValidateBy } from 'class-validator';
import { isCurrency, MAX_MINOR_DIGITS } from '../money';

/** A decimal string with as many fraction digits as some currency has (ISO 4217: 0 to 4). */
export const AMOUNT_PATTERN = new RegExp(`^(0|[1-9]\\d{0,14})(\\.\\d{1,${MAX_MINOR_DIGITS}})?$`);
/** The longest string AMOUNT_PATTERN matches: 15 digits, the point, 4 digits. */
export const AMOUNT_MAX_LENGTH = 20;
/** What AMOUNT_PATTERN asks for, its digit limit included, so an amount too large is told why. */
export const AMOUNT_MESSAGE =
  'must be a non-negative decimal string with at most 15 digits before the point, e.g. "19.99"';
/** A total may have more digits than one price: up to a bigint of minor units. */
export const TOTAL_PATTERN = new RegExp(`^(0|[1-9]\\d{0,18})(\\.\\d{1,${MAX_MINOR_DIGITS}})?$`);
/** The longest string TOTAL_PATTERN matches: 19 digits, the point, 4 digits. */
export const TOTAL_MAX_LENGTH = 24;
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;
export const CURRENCY_MESSAGE = 'must be an ISO 4217 code such as EUR';

/**
 * A current ISO 4217 code, for a filter: a code no product can have (`ZZZ`) is a
 * mistake to name, not an empty page. (Writes check the same list, and minor units, when
 * parsing the amount: money.ts.) The message is the pattern's, so it is said once.
 */
export const IsIso4217 = () =>
  ValidateBy({
    name: 'isIso4217',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isCurrency(value),
      defaultMessage: () => CURRENCY_MESSAGE,
    },
  });

/** v2 money (API.md §11): the amount as a decimal string with the currency's minor digits. */
export class MoneyDto {
  /**
   * Decimal string with exactly the currency's minor digits.
   * @example "19.99"
   */
  @IsString()
  @Length(1, AMOUNT_MAX_LENGTH)
  @Matches(AMOUNT_PATTERN, { message: AMOUNT_MESSAGE })
  amount: string;

  /**
   * ISO 4217 currency code.
   * @example "EUR"
   */
  @IsString()
  @Length(3, 3)
  @Matches(CURRENCY_PATTERN, { message: 'must be an ISO 4217 code such as EUR' })
  currency: string;
}

/**
 * v2 money that sums prices (a line's total, an order's, an invoice's): as MoneyDto, with
 * as many digits as a bigint of minor units holds, more than one price has. Answers only.
 */
export class MoneyTotalDto extends PickType(MoneyDto, ['currency']) {
  /**
   * Decimal string with exactly the currency's minor digits.
   * @example "39.98"
   */
  @ApiProperty({ minLength: 1, maxLength: TOTAL_MAX_LENGTH, pattern: TOTAL_PATTERN.source })
  amount: string;
}
