import { getMetadataStorage, ValidationError } from 'class-validator';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { Constructor, validationMetadataOf } from '../input/validation-metadata';

interface EachRule {
  metadata: ValidationMetadata;
  constraint: ConstraintMetadata;
}

const rules = new WeakMap<Constructor, Map<string, EachRule[]>>();

/**
 * A validator declared with `{ each: true }` reports the array: field `events`, "each
 * value in events must be one of ...". A client fixing its request needs the member, as
 * `lines[2].sku` names one elsewhere. This runs each such validator again on every member
 * of the array it failed on, and moves its error to the members that fail it: field
 * `events[2]`, "must be one of ...". Only after validation has failed, so a valid request
 * pays nothing. `errors` is changed in place and returned.
 */
export function errorsOnMembers(object: object, errors: ValidationError[]): ValidationError[] {
  const record = object as Record<string, unknown>;
  for (const error of errors) {
    const value = record[error.property];
    if (error.constraints && Array.isArray(value)) moveToMembers(object, error, value);
    if (error.children?.length && typeof value === 'object' && value !== null) {
      errorsOnMembers(value, error.children);
    }
  }
  return errors;
}

function moveToMembers(object: object, error: ValidationError, members: unknown[]): void {
  const constraints = error.constraints as Record<string, string>;
  for (const { metadata, constraint } of rulesOf(object, error.property)) {
    const message = constraints[constraint.name];
    if (message === undefined) continue;
    const failing = members.flatMap((member, index) => {
      const valid = constraint.instance.validate(member, {
        targetName: object.constructor.name,
        property: error.property,
        object,
        value: member,
        constraints: metadata.constraints,
      });
      // an async rule would need awaiting; none of ours is, so the array keeps its error
      return valid === false ? [index] : [];
    });
    if (failing.length === 0) continue;
    delete constraints[constraint.name];
    // class-validator's own messages say "each value in events must ..."
    const memberMessage = message.replace(/^each value in \S+ /, '');
    error.children = [
      ...(error.children ?? []),
      ...failing.map((index) =>
        Object.assign(new ValidationError(), {
          property: String(index),
          value: members[index],
          constraints: { [constraint.name]: memberMessage },
          children: [],
        }),
      ),
    ];
  }
}

function rulesOf(object: object, property: string): EachRule[] {
  const target = object.constructor as Constructor;
  let byProperty = rules.get(target);
  if (!byProperty) {
    byProperty = new Map();
    const storage = getMetadataStorage();
    for (const metadata of validationMetadataOf(target)) {
      if (!metadata.each || !metadata.constraintCls) continue;
      for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
        const list = byProperty.get(metadata.propertyName) ?? [];
        list.push({ metadata, constraint });
        byProperty.set(metadata.propertyName, list);
      }
    }
    rules.set(target, byProperty);
  }
  return byProperty.get(property) ?? [];
}
