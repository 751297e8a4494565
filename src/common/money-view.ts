import type { MoneyDto } from './dto/money.dto';
import { formatMoney } from './money';

/**
 * How an API version writes an amount (API.md §11): v1 a decimal string next to the
 * resource's `currency`, v2 a `{amount, currency}` object. A mapper written once takes
 * the view of the version it answers for.
 */
export type MoneyView<M> = (minor: string | bigint, scale: number, currency: string) => M;

export const MONEY_V1: MoneyView<string> = (minor, scale) => formatMoney(minor, scale);

export const MONEY_V2: MoneyView<MoneyDto> = (minor, scale, currency) => ({
  amount: formatMoney(minor, scale),
  currency,
});
