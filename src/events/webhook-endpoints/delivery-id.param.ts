import { Param, PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { NotFoundProblem } from '../../http/problems/problem';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed delivery id names no delivery: 404, like an unknown one. */
class DeliveryIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw new NotFoundProblem('webhook delivery', value);
    return value;
  }
}

/** The `:deliveryId` path parameter. */
export const DeliveryId = () => Param('deliveryId', new DeliveryIdPipe());

/** Its documentation (path parameters have no DTO for the swagger plugin to read). */
export const ApiDeliveryId = () =>
  ApiParam({
    name: 'deliveryId',
    description: 'A delivery of this endpoint.',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  });
