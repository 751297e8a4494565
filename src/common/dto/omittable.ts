import { ValidateIf } from 'class-validator';

/**
 * For a body field that may be left out but is never null: validation is skipped only
 * when the field is absent, so `null` meets the field's own validators and fails them
 * (422), instead of slipping past `@IsOptional()` into a NOT NULL column (500). Use
 * `@IsOptional()` only for fields that are nullable on the wire, such as `description`.
 * PATCH bodies get the same rule from `PartialType(Dto, { skipNullProperties: false })`.
 */
export const IsOmittable = () =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);
