import { Param, PipeTransform } from '@nestjs/common';
import { UUID_PATTERN } from '../../common/dto/uuid';
import { SKU_PATTERN } from '../../products/dto/product-fields.dto';
import { NotFoundProblem } from '../problems/problem';

/** A key that cannot exist names no resource: 404, as for an unknown one, never 400. */
class ResourceKeyPipe implements PipeTransform<string, string> {
  constructor(
    private readonly resource: string,
    private readonly pattern: RegExp,
  ) {}

  transform(value: string): string {
    if (!this.pattern.test(value)) throw new NotFoundProblem(this.resource, value);
    return value;
  }
}

/** The `:id` path parameter (a UUID) of a `resource`. */
export const ResourceId = (resource: string) =>
  Param('id', new ResourceKeyPipe(resource, UUID_PATTERN));

/** The `:sku` path parameter of the inventory. */
export const SkuParam = () => Param('sku', new ResourceKeyPipe('inventory item', SKU_PATTERN));
