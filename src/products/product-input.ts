/** A product as a client describes it, whatever the API version's wire shape. */
export interface ProductInput {
  sku: string;
  name: string;
  description: string | null;
  category: string;
  price: { amount: string; currency: string };
  active: boolean;
}

/** PATCH: only the fields sent. A price always travels with its currency. */
export type ProductPatch = Partial<Omit<ProductInput, 'price'>> & {
  price?: { amount: string; currency?: string };
};
