import { randomUUID } from 'node:crypto';
import { OpenApiRegistry } from '../src/docs/openapi/openapi-registry';
import { resolve } from './support/openapi-conformance';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §3 and §7: a field the document does not make nullable refuses `null` with
 * `422 validation_failed` naming it, on every write of both versions. `@IsOptional()`
 * lets `null` through to a NOT NULL column (a 500); IsOmittable (src/common/dto) is the
 * decorator for fields that may be left out but are never null. Bodies are validated
 * before the handler looks anything up, so a random id is enough.
 */
type Json = Record<string, any>;

let api: TestApp;
let cases: [string, string, string, string][] = [];

beforeAll(async () => {
  api = await startTestApp();
  const documents = api.app.get(OpenApiRegistry).get() as unknown as Record<string, Json>;
  cases = Object.entries(documents).flatMap(([, doc]) =>
    Object.entries(doc.paths as Json).flatMap(([template, item]) =>
      ['post', 'put', 'patch'].flatMap((method) => {
        const schema = (item as Json)[method]?.requestBody?.content?.['application/json']
          ?.schema as Json | undefined;
        if (!schema) return [];
        const resolved = resolve(doc, schema);
        const path = template.replace(/\{[^}]+\}/g, randomUUID());
        return Object.entries((resolved.properties ?? {}) as Json)
          .filter(([, property]) => !allowsNull(property as Json))
          .map(([field]): [string, string, string, string] => [method, template, path, field]);
      }),
    ),
  );
});
afterAll(() => api?.close());

function allowsNull(schema: Json): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('null')) return true;
  return ((schema.anyOf ?? schema.oneOf ?? []) as Json[]).some(allowsNull);
}

it('finds the writes to check in the documents', () => {
  expect(cases.length).toBeGreaterThan(100);
  expect(cases).toContainEqual(['patch', '/api/v2/oauth-clients/{id}', expect.any(String), 'name']);
});

it('refuses null for every non-nullable field of every write body with 422 naming it', async () => {
  const accepted: string[] = [];
  for (const [method, template, path, field] of cases) {
    const response = await api.request(method.toUpperCase(), path, { body: { [field]: null } });
    const named = (response.body.errors ?? []).some(
      (e: { field: string }) => e.field === field || e.field.startsWith(`${field}.`),
    );
    if (response.status !== 422 || !named) {
      accepted.push(`${method.toUpperCase()} ${template} ${field}: ${response.status}`);
    }
  }
  expect(accepted).toEqual([]);
});
