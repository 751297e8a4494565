import { EMAIL_MAX_LENGTH } from '../../auth/users/user-email';
import { SKU_PATTERN } from '../../products/dto/product-fields.dto';
import type { Document, Json } from './openapi-shape';

/**
 * Generic post-processing of every schema of a document, so that it is valid OpenAPI 3.1
 * and says what API.md §12 asks of it (bounded strings, integers and arrays, closed
 * objects) without an `@ApiProperty` on every DTO field. Bounds that the validators
 * enforce are documented from them (validation-constraints.ts); what is filled here is
 * either implied by the contract or a ceiling that is true of every value.
 */
export function normalizeSchemas(doc: Document, limits: ServerLimits): void {
  normalizePathParameters(doc, limits.maxParamLength);
  visitSchemaPositions(doc, (schema) => normalizeSchema(schema, limits.bodyLimit));
}

/** The HTTP server's own limits (Fastify's `bodyLimit` and router `maxParamLength`). */
export interface ServerLimits {
  bodyLimit: number;
  maxParamLength: number;
}

/** JavaScript's safe integers: no JSON number this API writes or reads is beyond them. */
const SAFE_MAX = Number.MAX_SAFE_INTEGER;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** Lengths implied by a string format. */
const FORMAT_MAX_LENGTH: Record<string, number> = {
  uuid: 36,
  date: 10,
  // RFC 3339 at its longest useful form, 2026-11-21T10:00:00.123456789+01:00; the API
  // writes 2026-11-21T10:00:00.000Z.
  'date-time': 35,
  // users' emails (auth/users/user-email.ts), after RFC 5321
  email: EMAIL_MAX_LENGTH,
};

/**
 * Path parameters are validated by pipes, not DTOs, so no metadata reaches the document:
 * ids are UUIDs and inventory is addressed by SKU (API.md §3; http/input/resource-id.pipe.ts).
 * Any other path segment is bounded by the router's `maxParamLength`.
 */
const PATH_PARAMETERS: Record<string, Json> = {
  id: { type: 'string', format: 'uuid', maxLength: 36 },
  sku: { type: 'string', maxLength: 64, pattern: SKU_PATTERN.source },
};

function normalizePathParameters(doc: Document, maxParamLength: number): void {
  visitParameters(doc, (parameter) => {
    if (parameter.in !== 'path') return;
    const schema = (parameter.schema ?? {}) as Json;
    const known = PATH_PARAMETERS[parameter.name as string];
    if (known && (schema.type === undefined || schema.type === 'string') && !schema.format) {
      parameter.schema = { ...schema, ...known };
    } else if (typesOf(schema).includes('string') && schema.maxLength === undefined) {
      schema.maxLength = maxParamLength;
    }
  });
}

/**
 * `unbounded` is the longest a string (or array) without a declared bound can be: the
 * body limit (API.md §1: a larger body is 413), since nothing longer can get in and the
 * API stores and returns only what it took or made itself.
 */
function normalizeSchema(schema: unknown, unbounded: number): void {
  if (!isObject(schema)) return;
  if (typeof schema.$ref === 'string') {
    // 3.0's `nullable` next to a $ref becomes a 3.1 union with null
    if (schema.nullable === true) {
      const { $ref, nullable: _nullable, ...rest } = schema;
      for (const key of Object.keys(schema)) delete schema[key];
      Object.assign(schema, rest, { anyOf: [{ $ref }, { type: 'null' }] });
    }
    delete schema.nullable;
    return;
  }
  toTypeArrays(schema);
  toNumericExclusiveBounds(schema);
  const types = typesOf(schema);
  // API.md: money is a decimal string, never a JSON number, so every number this API
  // carries is a whole one (counts, quantities, versions). A real fraction would declare
  // `format: 'double'` (or 'float') and keep its type.
  if (types.includes('number') && schema.format !== 'double' && schema.format !== 'float') {
    replaceType(schema, 'number', 'integer');
  }
  if (typesOf(schema).includes('integer')) boundInteger(schema);
  if (types.includes('string') && !schema.enum && schema.const === undefined) {
    schema.maxLength ??= FORMAT_MAX_LENGTH[schema.format as string] ?? unbounded;
  }
  if (types.includes('array')) schema.maxItems ??= unbounded;
  // A body with an unknown field is 422 (API.md §3), and answers carry only the declared
  // fields. A schema without `properties` is a free-form map and stays open; so does one
  // composed with allOf/anyOf/oneOf, whose other branches declare more properties.
  const composed = ['allOf', 'anyOf', 'oneOf'].some((key) => key in schema);
  if (types.includes('object') && isObject(schema.properties) && !composed) {
    schema.additionalProperties ??= false;
  }
  for (const child of subschemas(schema)) normalizeSchema(child, unbounded);
}

/** 3.0 `nullable: true` to a 3.1 type array (`['string', 'null']`), `null` in any enum. */
function toTypeArrays(schema: Json): void {
  if (!('nullable' in schema)) return;
  const nullable = schema.nullable === true;
  delete schema.nullable;
  if (!nullable) return;
  if (schema.type !== undefined) {
    const types = typesOf(schema);
    if (!types.includes('null')) schema.type = [...types, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null);
  } else {
    const copy = { ...schema };
    for (const key of Object.keys(schema)) delete schema[key];
    schema.anyOf = [copy, { type: 'null' }];
  }
}

/** 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` to 3.1 numbers. */
function toNumericExclusiveBounds(schema: Json): void {
  for (const [exclusive, inclusive] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue;
    if (schema[exclusive] === true && typeof schema[inclusive] === 'number') {
      schema[exclusive] = schema[inclusive];
      delete schema[inclusive];
    } else {
      delete schema[exclusive];
    }
  }
}

/** `format`, `minimum` and `maximum` on every integer (the OWASP ruleset's API4 rules). */
function boundInteger(schema: Json): void {
  if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) {
    schema.minimum = -SAFE_MAX;
  }
  if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) {
    schema.maximum = SAFE_MAX;
  }
  if (schema.format === undefined) {
    const low = (schema.minimum ?? schema.exclusiveMinimum) as number;
    const high = (schema.maximum ?? schema.exclusiveMaximum) as number;
    schema.format = low >= INT32.min && high <= INT32.max ? 'int32' : 'int64';
  }
}

function typesOf(schema: Json): string[] {
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  return typeof type === 'string' ? [type] : [];
}

function replaceType(schema: Json, from: string, to: string): void {
  if (Array.isArray(schema.type)) {
    schema.type = [...new Set((schema.type as string[]).map((t) => (t === from ? to : t)))];
  } else if (schema.type === from) {
    schema.type = to;
  }
}

function subschemas(schema: Json): unknown[] {
  const found: unknown[] = [];
  for (const key of ['items', 'not', 'additionalProperties', 'contains', 'unevaluatedProperties']) {
    if (isObject(schema[key])) found.push(schema[key]);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
    if (Array.isArray(schema[key])) found.push(...(schema[key] as unknown[]));
  }
  for (const key of ['properties', 'patternProperties', '$defs']) {
    if (isObject(schema[key])) found.push(...Object.values(schema[key]));
  }
  return found;
}

/**
 * Calls `visit` on every schema the document holds outside other schemas: component
 * schemas and the `schema` of parameters, headers and media types. Examples are data,
 * not schemas, and are skipped.
 */
function visitSchemaPositions(doc: Document, visit: (schema: unknown) => void): void {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example' || key === 'examples') continue;
      if (key === 'schema') visit(value);
      else walk(value);
    }
  };
  const { components, ...rest } = doc as unknown as Json;
  walk(rest);
  if (isObject(components)) {
    const { schemas, ...others } = components;
    if (isObject(schemas)) Object.values(schemas).forEach(visit);
    walk(others);
  }
}

function visitParameters(doc: Document, visit: (parameter: Json) => void): void {
  const visitList = (list: unknown) => {
    if (Array.isArray(list)) list.filter(isObject).forEach(visit);
  };
  for (const item of Object.values(doc.paths ?? {}) as Json[]) {
    visitList(item.parameters);
    for (const operation of Object.values(item)) {
      if (isObject(operation)) visitList(operation.parameters);
    }
  }
  const shared = doc.components?.parameters as unknown;
  if (isObject(shared)) Object.values(shared).filter(isObject).forEach(visit);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
