import type { MoneyFields } from '../common/money';

/**
 * A price as a client sent it, with the fields it was sent in (`fields`), so an error names
 * what this version's body has: v1 `price` and `currency`, v2 `price.amount` and
 * `price.currency`.
 */
export interface PriceInput {
  amount: string;
  currency: string;
  fields: MoneyFields;
}

/** A product as a client describes it, whatever the API version's wire shape. */
export interface ProductInput {
  sku: string;
  name: string;
  description: string | null;
  category: string;
  price: PriceInput;
  active: boolean;
}

/**
 * PATCH: only the fields sent. A price always travels with its currency: v1 may leave it
 * out, meaning the product's current one.
 */
export type ProductPatch = Partial<Omit<ProductInput, 'price'>> & {
  price?: Omit<PriceInput, 'currency'> & { currency?: string };
};
