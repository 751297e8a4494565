import { MoneyDto } from '../../common/dto/money.dto';

/** Fields of a product every version shows. */
class ProductBaseDto {
  /** @example "0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11" */
  id: string;
  sku: string;
  name: string;
  description: string | null;
  category: string;
  active: boolean;
  /** Grows by one with every change; the ETag is this number. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A product as /api/v1 shows it. */
export class ProductV1Dto extends ProductBaseDto {
  /** @example "19.99" */
  price: string;
  /** @example "EUR" */
  currency: string;
}

/** A product as /api/v2 shows it. */
export class ProductV2Dto extends ProductBaseDto {
  price: MoneyDto;
}
