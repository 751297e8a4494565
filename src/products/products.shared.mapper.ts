import type { ProductBaseDto } from './dto/product.dto';
import type { ProductEntity } from './product.entity';

/** The fields every version shows as they are stored; each version adds its price. */
export function productBase(p: ProductEntity): ProductBaseDto {
  return {
    id: p.id,
    sku: p.sku,
    name: p.name,
    description: p.description,
    category: p.category,
    active: p.active,
    version: p.version,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}
