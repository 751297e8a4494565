import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BODY_LIMIT_BYTES } from '../src/app.factory';
import { resolve } from './support/openapi-conformance';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §11, §12: the OpenAPI 3.1 document of each version, as the server serves it,
 * is complete (responses, errors, security, headers) and passes the linters the contract
 * names, with the same configuration files `npm run lint:openapi` uses.
 */

type Json = Record<string, any>;
type Docs = { v1: Json; v2: Json };

const ROOT = join(__dirname, '..');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const execFileAsync = promisify(execFile);

let api: TestApp;
let sunset: TestApp;
let docs: Docs;
let deprecated: Docs;
let dir: string;

async function fetchDocs(app: TestApp): Promise<Docs> {
  const [v1, v2] = await Promise.all(
    ['v1', 'v2'].map(async (version) => {
      const response = await app.get(`/docs/${version}/openapi.json`, { auth: false });
      expect(response.status).toBe(200);
      return response.body as Json;
    }),
  );
  return { v1, v2 };
}

beforeAll(async () => {
  [api, sunset] = await Promise.all([
    startTestApp(),
    startTestApp({ API_V1_SUNSET: '2027-06-30' }),
  ]);
  [docs, deprecated] = await Promise.all([fetchDocs(api), fetchDocs(sunset)]);
  dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  writeFileSync(join(dir, 'v1.json'), JSON.stringify(docs.v1, null, 2));
  writeFileSync(join(dir, 'v2.json'), JSON.stringify(docs.v2, null, 2));
  writeFileSync(join(dir, 'v1-deprecated.json'), JSON.stringify(deprecated.v1, null, 2));
});

afterAll(async () => {
  await Promise.all([api?.close(), sunset?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function operations(doc: Json): { path: string; method: string; operation: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((method) => ({
      path,
      method,
      operation: (item as Json)[method] as Json,
    })),
  );
}

/** Every schema object of the document (examples are data, not schemas). */
function schemas(doc: Json): { at: string; schema: Json }[] {
  const found: { at: string; schema: Json }[] = [];
  const types = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((child, i) => walk(child, `${at}/${i}`));
    if (!node || typeof node !== 'object') return;
    const type = (node as Json).type;
    if ((Array.isArray(type) ? type : [type]).some((t) => types.includes(t))) {
      found.push({ at, schema: node });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'example' && key !== 'examples') walk(value, `${at}/${key}`);
    }
  };
  walk(doc, '#');
  return found;
}

const typesOf = (schema: Json): string[] =>
  Array.isArray(schema.type) ? schema.type : [schema.type];

describe.each(['v1', 'v2'] as const)('%s document', (version) => {
  const doc = () => docs[version];

  it('is OpenAPI 3.1 with one public server named for its environment', () => {
    expect(doc().openapi).toMatch(/^3\.1\./);
    expect(doc().info.version).toBe(version.slice(1));
    expect(doc().servers).toEqual([
      { url: '/', description: expect.stringMatching(/\btest\b/), 'x-internal': false },
    ]);
    expect(Object.keys(doc().paths).length).toBeGreaterThan(0);
    for (const path of Object.keys(doc().paths)) expect(path).toMatch(`/api/${version}/`);
  });

  it('declares the API key and bearer schemes, the JWT one citing RFC8725', () => {
    const schemes = doc().components.securitySchemes as Json;
    expect(schemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(schemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    for (const scheme of Object.values(schemes) as Json[]) {
      if (scheme.type === 'oauth2' || scheme.bearerFormat === 'JWT') {
        expect(scheme.description).toContain('RFC8725');
      }
      for (const flow of Object.values((scheme.flows ?? {}) as Json) as Json[]) {
        expect(flow.refreshUrl).toBeTruthy();
      }
    }
  });

  it('declares the code and client credentials flows, each with exactly the scopes operations require', () => {
    const used = new Set<string>();
    for (const { operation } of operations(doc())) {
      for (const requirement of (operation.security ?? []) as Json[]) {
        for (const scope of (requirement.OAuth2 ?? []) as string[]) used.add(scope);
      }
    }
    const { flows } = doc().components.securitySchemes.OAuth2;

    expect(Object.keys(flows).sort()).toEqual(['authorizationCode', 'clientCredentials']);
    expect(flows.clientCredentials).toMatchObject({
      tokenUrl: '/oauth/token',
      refreshUrl: '/oauth/token',
    });
    for (const flow of Object.values<Json>(flows)) {
      expect(Object.keys(flow.scopes).sort()).toEqual([...used].sort());
    }
  });

  it('documents every operation with its security, success and problem answers', () => {
    for (const { path, method, operation } of operations(doc())) {
      const responses = operation.responses as Json;
      const statuses = Object.keys(responses);
      const where = `${operation.operationId} ${path}`;
      expect([where, operation.security]).toEqual([
        where,
        expect.arrayContaining([{ ApiKey: [] }, { Bearer: [] }]),
      ]);
      expect([where, statuses.some((s) => /^2/.test(s))]).toEqual([where, true]);
      // a body is held to API.md §1 on any operation that reads one, even one that
      // ignores it; a GET reads none
      const body = ['413', '415', '422'];
      const expected = ['400', '401', '403', '429', '500', '503'];
      if (method !== 'get') expected.push(...body);
      if (path.includes('{')) expected.push('404');
      expect([where, statuses]).toEqual([where, expect.arrayContaining(expected)]);
      if (method === 'get') {
        expect([where, statuses.filter((s) => body.includes(s))]).toEqual([where, []]);
      }
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        expect(responses[status].$ref).toMatch(/^#\/components\/responses\//);
        const problem = resolve(doc(), responses[status]);
        expect(problem.content['application/problem+json'].schema).toEqual({
          $ref: '#/components/schemas/Problem',
        });
      }
      for (const [status, ref] of Object.entries(responses)) {
        const headers = Object.keys(resolve(doc(), ref as Json).headers ?? {});
        expect([where, status, headers]).toEqual([
          where,
          status,
          expect.arrayContaining([
            'RateLimit',
            'RateLimit-Policy',
            'Access-Control-Allow-Origin',
            'Vary',
          ]),
        ]);
        // one rate-limit convention per response; the X-RateLimit-* ones are prose only
        expect(headers.filter((h) => /^X-RateLimit/i.test(h))).toEqual([]);
      }
      expect(operation.deprecated).toBeUndefined();
      expect(operation.description).toMatch(/`[a-z-]+:(read|write)`/);
    }
    const tooMany = doc().components.responses.TooManyRequests as Json;
    expect(Object.keys(tooMany.headers)).toContain('Vary');
    expect(Object.keys(tooMany.headers)).toContain('Retry-After');
    const unavailable = doc().components.responses.ServiceUnavailable as Json;
    expect(Object.keys(unavailable.headers)).toContain('Retry-After');
    expect(doc().info.description).toMatch(/X-RateLimit-Limit/);
  });

  it('says that another method on a path is 405 with Allow, which no operation can document', () => {
    expect(doc().info.description).toMatch(/405 method_not_allowed.*\n?.*`Allow`/);
  });

  it('documents If-None-Match and 304 on every GET, and an ETag where the answer has one', () => {
    for (const { path, method, operation } of operations(doc())) {
      const where = `${operation.operationId} ${path}`;
      const responses = operation.responses as Json;
      const headersOf = (status: string) =>
        Object.keys(resolve(doc(), responses[status]).headers ?? {});
      const conditional = ((operation.parameters ?? []) as Json[]).some(
        (p) => p.in === 'header' && p.name === 'If-None-Match',
      );
      expect([where, conditional]).toEqual([where, method === 'get']);
      if (method !== 'get') continue;
      expect([where, responses['304']]).toEqual([
        where,
        { $ref: '#/components/responses/NotModified' },
      ]);
      expect([where, headersOf('200')]).toEqual([
        where,
        expect.arrayContaining(['ETag', 'Cache-Control']),
      ]);
    }
    const notModified = doc().components.responses.NotModified as Json;
    expect(notModified.content).toBeUndefined();
    expect(Object.keys(notModified.headers)).toEqual(expect.arrayContaining(['ETag', 'Vary']));
    // a write answers with an ETag only when its body is a versioned resource
    const answer = (operationId: string, status: string) =>
      operations(doc()).find((o) => o.operation.operationId === operationId)?.operation.responses[
        status
      ] as Json;
    expect(Object.keys(answer('createProduct', '201').headers)).toContain('ETag');
    expect(Object.keys(answer('retryWebhookDelivery', '202').headers)).not.toContain('ETag');
  });

  it('bounds every string, integer and array, and closes every object', () => {
    const problems: string[] = [];
    for (const { at, schema } of schemas(doc())) {
      const types = typesOf(schema);
      if ('nullable' in schema) problems.push(`${at}: nullable (3.0) instead of a type array`);
      for (const key of ['exclusiveMinimum', 'exclusiveMaximum']) {
        if (typeof schema[key] === 'boolean') problems.push(`${at}: boolean ${key}`);
      }
      if (types.includes('number')) problems.push(`${at}: number (every number is whole)`);
      if (types.includes('string') && !('maxLength' in schema || 'enum' in schema)) {
        problems.push(`${at}: string without maxLength`);
      }
      // the body limit is the fallback for a string nothing bounds; every field has a bound
      if (types.includes('string') && schema.maxLength === BODY_LIMIT_BYTES) {
        problems.push(`${at}: string bounded only by the body limit`);
      }
      if (types.includes('integer')) {
        for (const key of ['format', 'minimum', 'maximum']) {
          if (!(key in schema)) problems.push(`${at}: integer without ${key}`);
        }
      }
      if (types.includes('array') && !('maxItems' in schema)) {
        problems.push(`${at}: array without maxItems`);
      }
      const composed = ['allOf', 'anyOf', 'oneOf'].some((key) => key in schema);
      const closed = schema.additionalProperties === false || composed;
      if (types.includes('object') && schema.properties && !closed) {
        problems.push(`${at}: object open to unknown properties`);
      }
      if (types.includes('object') && !schema.properties && !('additionalProperties' in schema)) {
        if (!composed) problems.push(`${at}: object of no declared shape`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents timestamps as date-time strings and ids as UUIDs', () => {
    const components = doc().components.schemas as Json;
    for (const [name, schema] of Object.entries(components) as [string, Json][]) {
      for (const field of ['createdAt', 'updatedAt']) {
        if (schema.properties?.[field]) {
          expect([name, schema.properties[field]]).toEqual([
            name,
            expect.objectContaining({ type: 'string', format: 'date-time' }),
          ]);
        }
      }
    }
    for (const { operation } of operations(doc())) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        if (parameter.in === 'path' && parameter.name === 'id') {
          expect(parameter.schema).toMatchObject({ type: 'string', format: 'uuid' });
        }
      }
    }
  });

  it('documents the bounds the validators enforce', () => {
    const list = operations(doc()).find(
      ({ operation }) => operation.operationId === 'listProducts',
    );
    const limit = (list?.operation.parameters as Json[]).find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    const adjustment = doc().components.schemas.AdjustmentWriteDto as Json;
    expect(adjustment.required).toEqual(expect.arrayContaining(['delta', 'reason']));
    expect(adjustment.properties.delta).toMatchObject({
      type: 'integer',
      minimum: -1_000_000_000,
      maximum: 1_000_000_000,
    });
    const product =
      doc().components.schemas[version === 'v1' ? 'ProductWriteV1Dto' : 'ProductWriteV2Dto'];
    expect(product.properties.sku).toMatchObject({
      maxLength: 64,
      pattern: '^[A-Za-z0-9._-]{1,64}$',
    });
  });
});

it('offers `page` in v1 collections only (v2 is cursor-only)', () => {
  const pageParameters = (doc: Json) =>
    operations(doc).filter(({ operation }) =>
      ((operation.parameters ?? []) as Json[]).some((p) => p.in === 'query' && p.name === 'page'),
    );
  expect(pageParameters(docs.v1).length).toBeGreaterThan(0);
  expect(pageParameters(docs.v2)).toEqual([]);
});

it('marks every v1 operation deprecated once API_V1_SUNSET is set, and no v2 one', () => {
  const v1 = operations(deprecated.v1);
  expect(v1.length).toBeGreaterThan(0);
  for (const { operation } of v1) {
    expect([operation.operationId, operation.deprecated]).toEqual([operation.operationId, true]);
    for (const response of Object.values(operation.responses as Json)) {
      const headers = Object.keys(resolve(deprecated.v1, response as Json).headers);
      expect(headers).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    }
  }
  for (const { operation } of operations(deprecated.v2)) {
    expect(operation.deprecated).toBeUndefined();
  }
});

/** Runs a linter's CLI from node_modules; no network (telemetry and update checks off). */
async function runCli(args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync(process.execPath, args, {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    return stdout;
  } catch (error) {
    // a linter that found errors exits non-zero; its report is still on stdout
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout) return stdout;
    throw error;
  }
}

/** The linters take a few seconds each, more on a busy CI machine. */
const LINT_TIMEOUT_MS = 180_000;

const files = () => ['v1.json', 'v2.json', 'v1-deprecated.json'].map((f) => join(dir, f));

it(
  'passes `redocly lint` (recommended) with zero errors',
  async () => {
    const cli = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    // one run per file: its JSON report covers one document
    const reports = await Promise.all(
      files().map(async (file) => {
        const stdout = await runCli([
          cli,
          'lint',
          '--config',
          'redocly.yaml',
          '--format',
          'json',
          file,
        ]);
        return {
          file,
          ...(JSON.parse(stdout) as { totals: { errors: number }; problems: Json[] }),
        };
      }),
    );
    for (const { file, totals, problems } of reports) {
      expect([file, problems.filter((p) => p.severity === 'error')]).toEqual([file, []]);
      expect([file, totals.errors]).toEqual([file, 0]);
    }
  },
  LINT_TIMEOUT_MS,
);

it(
  'passes Spectral (spectral:oas and the OWASP API Security ruleset) with zero errors',
  async () => {
    // A canary the OWASP ruleset must flag, so a ruleset that silently failed to load
    // cannot pass for a clean result.
    const canary = join(dir, 'canary.json');
    const unbounded = { type: 'object', properties: { name: { type: 'string' } } };
    writeFileSync(
      canary,
      JSON.stringify({
        ...docs.v2,
        components: {
          ...docs.v2.components,
          schemas: { ...docs.v2.components.schemas, Unbounded: unbounded },
        },
      }),
    );
    const cli = join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
    const results = JSON.parse(
      await runCli([cli, 'lint', '-r', '.spectral.yaml', '-f', 'json', ...files(), canary]),
    ) as { code: string; severity: number; path: string[]; source: string }[];
    // DiagnosticSeverity.Error is 0
    const errors = results.filter((r) => r.severity === 0);
    expect(errors.filter((r) => r.source !== canary)).toEqual([]);
    expect(errors.map((r) => r.code)).toContain('owasp:api4:2023-string-limit');
  },
  LINT_TIMEOUT_MS,
);

it('documents each collection’s sort fields, default and tie-breaker, and the limit’s default, as the API takes them', async () => {
  const lists = operations(docs.v2).filter(({ operation }) =>
    ((operation.parameters ?? []) as Json[]).some((p) => p.in === 'query' && p.name === 'sort'),
  );
  expect(lists.length).toBe(12);
  for (const { path, operation } of lists) {
    const parameters = operation.parameters as Json[];
    const sort = parameters.find((p) => p.name === 'sort') as Json;
    const limit = parameters.find((p) => p.name === 'limit') as Json;
    expect([path, limit.schema.default]).toEqual([path, 20]);
    const fields = [...(sort.description as string).matchAll(/`(-?\w+)`/g)].map((m) => m[1]);
    const pattern = new RegExp(sort.schema.pattern as string);
    expect([path, pattern.test(sort.schema.default as string)]).toEqual([path, true]);
    expect([path, pattern.test('colour')]).toEqual([path, false]);
    if (path.includes('{')) continue; // nested collections: their parent is needed
    for (const field of new Set(fields.filter((f) => !f.startsWith('-')))) {
      expect([path, field, pattern.test(`-${field}`)]).toEqual([path, field, true]);
      const response = await api.get(`${path}?sort=-${field}&limit=1`);
      expect([path, field, response.status]).toEqual([path, field, 200]);
    }
  }
  const products = lists.find(({ path }) => path === '/api/v2/products')?.operation as Json;
  const sort = (products.parameters as Json[]).find((p) => p.name === 'sort') as Json;
  expect(sort.schema.default).toBe('-createdAt');
  expect(sort.description).toContain('`price`');
});
