import { ApiProperty, DECORATORS } from '@nestjs/swagger';
import {
  ARRAY_MAX_SIZE,
  ARRAY_MIN_SIZE,
  getMetadataStorage,
  IS_EMAIL,
  IS_ENUM,
  IS_IN,
  IS_INT,
  IS_LENGTH,
  IS_OPTIONAL,
  IS_UUID,
  MATCHES,
  MAX,
  MAX_LENGTH,
  MIN,
  MIN_LENGTH,
} from 'class-validator';
import type { Json } from './openapi-shape';

/** What this step reads of class-validator's ValidationMetadata (not exported by it). */
interface ValidationMetadata {
  name?: string;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
}

type Target = { prototype: object };

/**
 * The swagger CLI plugin turns class-validator decorators into schema keywords at compile
 * time, but only for literal arguments: `@Max(MAX_LIMIT)` and `@Matches(SKU_PATTERN)` are
 * dropped (under Jest, where the metadata is generated into src/metadata.ts, even more
 * so), and `@Min(-MAX_QUANTITY)` makes it skip the whole property. So the documented
 * bounds would drift from the enforced ones.
 *
 * This reads the validators' *runtime* constraints instead, the very values the
 * ValidationPipe enforces, and records them as swagger property metadata before the
 * document is built. An explicit `@ApiProperty` on the property still wins; the plugin's
 * own guesses only fill what is left.
 */
export function documentValidationConstraints(): void {
  for (const [target, metadatas] of validationTargets()) {
    const byProperty = new Map<string, ValidationMetadata[]>();
    for (const m of metadatas) {
      byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
    }
    for (const [property, list] of byProperty) {
      const derived = schemaFrom(list);
      if (Object.keys(derived).length === 0) continue;
      const prototype = target.prototype;
      const existing = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, prototype, property) ??
        {}) as Json;
      ApiProperty({ ...derived, ...existing })(prototype, property);
    }
  }
}

/** The schema keywords a property's validators imply; `each` ones constrain items, skipped. */
function schemaFrom(metadatas: ValidationMetadata[]): Json {
  const schema: Json = {};
  for (const { name, constraints, each } of metadatas) {
    if (each) continue;
    const [first, second] = constraints ?? [];
    switch (name ?? "") {
      case IS_OPTIONAL:
        schema.required = false;
        break;
      case IS_INT:
        schema.type = 'integer';
        break;
      case MIN:
        schema.minimum = first;
        break;
      case MAX:
        schema.maximum = first;
        break;
      case MIN_LENGTH:
        schema.minLength = first;
        break;
      case MAX_LENGTH:
        schema.maxLength = first;
        break;
      case IS_LENGTH:
        schema.minLength = first;
        if (typeof second === 'number') schema.maxLength = second;
        break;
      case ARRAY_MIN_SIZE:
        schema.minItems = first;
        break;
      case ARRAY_MAX_SIZE:
        schema.maxItems = first;
        break;
      case MATCHES: {
        // JSON Schema patterns carry no flags: a case-insensitive RegExp cannot be written
        // as one without changing its meaning, so it stays undocumented.
        const pattern = first instanceof RegExp && !first.flags.includes('i') ? first.source : first;
        if (typeof pattern === 'string') schema.pattern = pattern;
        break;
      }
      case IS_UUID:
        schema.format = 'uuid';
        break;
      case IS_EMAIL:
        schema.format = 'email';
        break;
      case IS_IN:
        if (Array.isArray(first)) schema.enum = first;
        break;
      case IS_ENUM:
        if (first && typeof first === 'object') schema.enum = enumValues(first as Json);
        break;
      default:
        break;
    }
  }
  return schema;
}

/** A TypeScript enum's values, without the reverse mapping numeric enums carry. */
function enumValues(entity: Json): unknown[] {
  const keys = Object.keys(entity).filter((key) => Number.isNaN(Number(key)));
  return keys.map((key) => entity[key]);
}

/**
 * Every class that has validators, mapped types (PartialType, IntersectionType...)
 * included: they get copies of their parents' validators. class-validator keeps them in a
 * private map; reading it is the one way to list them.
 */
function validationTargets(): [Target, ValidationMetadata[]][] {
  const storage = getMetadataStorage() as unknown as { validationMetadatas?: unknown };
  const map = storage.validationMetadatas;
  // Not `instanceof Map`: a single Jest file runs in-band, in another realm than the global
  // setup that loaded class-validator first, and its Map is not this realm's Map.
  if (Object.prototype.toString.call(map) !== '[object Map]') {
    throw new Error('class-validator changed its metadata storage: update validation-constraints.ts');
  }
  // string keys are named validation schemas, not classes
  return [...(map as Map<Target | string, ValidationMetadata[]>)].filter(
    (entry): entry is [Target, ValidationMetadata[]] => typeof entry[0] === 'function',
  );
}
