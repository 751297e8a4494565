import { getMetadataStorage, ValidationError, ValidationTypes } from 'class-validator';
import { Constructor, validationMetadataOf } from './validation-metadata';

/** A string bound to check again: the property, its most code points, whether per item. */
interface Bound {
  property: string;
  max: number;
  each: boolean;
}

interface Shape {
  bounds: Bound[];
  nested: string[];
}

const shapes = new WeakMap<Constructor, Shape>();

/**
 * class-validator's MaxLength and Length measure with validator.js, which counts a
 * character and the variation selector after it (U+FE0E, U+FE0F) as one; PostgreSQL's
 * varchar and JSON Schema's maxLength (the documents) count code points. A name of 101
 * "a\uFE0F" passed `MaxLength(200)` and failed the column: a 500. Run after the DTO's own
 * validation has passed, this measures every such bound again in code points, in nested
 * objects too, and returns the errors class-validator would have.
 */
export function codePointLengthErrors(object: object): ValidationError[] {
  const shape = shapeOf(object.constructor as Constructor);
  const record = object as Record<string, unknown>;
  const errors: ValidationError[] = [];
  for (const { property, max, each } of shape.bounds) {
    const value = record[property];
    const tooLong = (v: unknown) => typeof v === 'string' && codePoints(v) > max;
    const message = `must be shorter than or equal to ${max} characters`;
    if (each && Array.isArray(value)) {
      // each member named, as member-errors.ts names them for class-validator's own checks
      const members = value.flatMap((v, index) =>
        tooLong(v) ? [error(String(index), v, { maxLength: message })] : [],
      );
      errors.push(...nestedError(property, members));
    } else if (tooLong(value)) {
      errors.push(error(property, value, { maxLength: message }));
    }
  }
  for (const property of shape.nested) {
    const value = record[property];
    const children = Array.isArray(value)
      ? value.flatMap((item, index) =>
          isObject(item) ? nestedError(String(index), codePointLengthErrors(item)) : [],
        )
      : isObject(value)
        ? codePointLengthErrors(value)
        : [];
    errors.push(...nestedError(property, children));
  }
  return errors;
}

function shapeOf(target: Constructor): Shape {
  let shape = shapes.get(target);
  if (shape) return shape;
  const storage = getMetadataStorage();
  shape = { bounds: [], nested: [] };
  for (const m of validationMetadataOf(target)) {
    if (m.type === ValidationTypes.NESTED_VALIDATION) {
      if (!shape.nested.includes(m.propertyName)) shape.nested.push(m.propertyName);
      continue;
    }
    if (m.type !== ValidationTypes.CUSTOM_VALIDATION) continue;
    const name = storage.getTargetValidatorConstraints(m.constraintCls)[0]?.name;
    const constraints = m.constraints as unknown[];
    const max = name === 'maxLength' ? constraints[0] : name === 'isLength' ? constraints[1] : null;
    if (typeof max === 'number') {
      shape.bounds.push({ property: m.propertyName, max, each: m.each ?? false });
    }
  }
  shapes.set(target, shape);
  return shape;
}

const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

function error(
  property: string,
  value: unknown,
  constraints: Record<string, string>,
): ValidationError {
  return Object.assign(new ValidationError(), { property, value, constraints, children: [] });
}

function nestedError(property: string, children: ValidationError[]): ValidationError[] {
  return children.length > 0 ? [Object.assign(new ValidationError(), { property, children })] : [];
}
