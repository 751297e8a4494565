import type { Type } from '@nestjs/common';

/**
 * What one version of a resource's API changes in its controller: the list query (v1
 * pages by offset, v2 by cursor), the resource's shape and the mapping to it. Each
 * resource has one controller class, built by a function for each version (API.md §11),
 * so the versions cannot drift apart in what they route, check and document.
 */
export interface ResourceVersion<Entity, Dto, ListQuery> {
  version: '1' | '2';
  dto: Type<Dto>;
  listQuery: Type<ListQuery>;
  toDto: (entity: Entity) => Dto;
}

/**
 * Declares the class of a handler parameter whose declared type is a type variable, as
 * in a controller built per version: TypeScript then records `Object` as the parameter's
 * type, so Nest's ValidationPipe would not check it and Swagger would not document it.
 * Parameter decorators run after TypeScript has recorded the types, so this corrects them.
 */
export function ParamType(type: Type<unknown>): ParameterDecorator {
  return (target, method, index) => {
    if (method === undefined) throw new Error('ParamType is for handler parameters');
    const recorded = Reflect.getMetadata('design:paramtypes', target, method) as
      unknown[] | undefined;
    const types = [...(recorded ?? [])];
    types[index] = type;
    Reflect.defineMetadata('design:paramtypes', types, target, method);
  };
}
