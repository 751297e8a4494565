import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** A DTO class, as class-validator keys its metadata. */
export type Constructor = abstract new (...args: never[]) => unknown;

/**
 * Every rule class-validator holds for a DTO class, its parents' included, whatever the
 * group: what the validation pipe's own passes (code-point-length.ts, member-errors.ts)
 * read once per class and cache.
 */
export function validationMetadataOf(target: Constructor): ValidationMetadata[] {
  return getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
}
