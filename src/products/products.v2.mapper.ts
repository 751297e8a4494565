import type { MoneyFields } from '../common/money';
import { MONEY_V2 } from '../common/money-view';
import type { ProductPatchV2Dto, ProductWriteV2Dto } from './dto/product-write.v2.dto';
import type { ProductV2Dto } from './dto/product.dto';
import type { ProductInput, ProductPatch } from './product-input';
import type { ProductEntity } from './product.entity';
import { productBase } from './products.shared.mapper';

/** v2 writes a price as a money object (API.md §11). */
const PRICE_FIELDS: MoneyFields = { amount: 'price.amount', currency: 'price.currency' };

export function toProductV2(p: ProductEntity): ProductV2Dto {
  return { ...productBase(p), price: MONEY_V2(p.priceMinor, p.priceScale, p.currency) };
}

export function productInputFromV2(dto: ProductWriteV2Dto): ProductInput {
  return {
    sku: dto.sku,
    name: dto.name,
    description: dto.description ?? null,
    category: dto.category,
    price: { amount: dto.price.amount, currency: dto.price.currency, fields: PRICE_FIELDS },
    active: dto.active ?? true,
  };
}

export function productPatchFromV2(dto: ProductPatchV2Dto): ProductPatch {
  const { price, ...fields } = dto;
  return {
    ...fields,
    ...(price !== undefined
      ? { price: { amount: price.amount, currency: price.currency, fields: PRICE_FIELDS } }
      : {}),
  };
}
