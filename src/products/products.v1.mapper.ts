import type { MoneyFields } from '../common/money';
import { MONEY_V1 } from '../common/money-view';
import { ValidationProblem } from '../http/problems/problem';
import type { ProductPatchV1Dto, ProductWriteV1Dto } from './dto/product-write.v1.dto';
import type { ProductV1Dto } from './dto/product.dto';
import type { ProductInput, ProductPatch } from './product-input';
import type { ProductEntity } from './product.entity';
import { productBase } from './products.shared.mapper';

/** v1 writes a price as the `price`/`currency` pair. */
const PRICE_FIELDS: MoneyFields = { amount: 'price', currency: 'currency' };

export function toProductV1(p: ProductEntity): ProductV1Dto {
  return {
    ...productBase(p),
    price: MONEY_V1(p.priceMinor, p.priceScale, p.currency),
    currency: p.currency,
  };
}

export function productInputFromV1(dto: ProductWriteV1Dto): ProductInput {
  return {
    sku: dto.sku,
    name: dto.name,
    description: dto.description ?? null,
    category: dto.category,
    price: { amount: dto.price, currency: dto.currency, fields: PRICE_FIELDS },
    active: dto.active ?? true,
  };
}

export function productPatchFromV1(dto: ProductPatchV1Dto): ProductPatch {
  if (dto.currency !== undefined && dto.price === undefined) {
    throw new ValidationProblem([
      { field: 'currency', message: 'can only change together with price' },
    ]);
  }
  const { price, currency, ...fields } = dto;
  return {
    ...fields,
    ...(price !== undefined ? { price: { amount: price, currency, fields: PRICE_FIELDS } } : {}),
  };
}
