import { IsString, Length, Matches } from 'class-validator';

export const AMOUNT_PATTERN = /^(0|[1-9]\d{0,14})(\.\d{1,4})?$/;
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

/** v2 money (API.md §11): the amount as a decimal string with the currency's minor digits. */
export class MoneyDto {
  /**
   * Decimal string with exactly the currency's minor digits.
   * @example "19.99"
   */
  @IsString()
  @Length(1, 20)
  @Matches(AMOUNT_PATTERN, { message: 'must be a non-negative decimal string, e.g. "19.99"' })
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
