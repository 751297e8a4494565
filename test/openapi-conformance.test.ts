import { OpenApiRegistry } from '../src/docs/openapi/openapi-registry';
import { createProduct } from './support/factories';
import { Exchange, OpenApiConformance } from './support/openapi-conformance';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/**
 * The checker every test-app request goes through (support/openapi-conformance.ts): it
 * passes what the server answers and catches an answer the documents do not describe.
 */
let api: TestApp;
let conformance: OpenApiConformance;

beforeAll(async () => {
  api = await startTestApp();
  conformance = new OpenApiConformance(api.app.get(OpenApiRegistry).get());
});
afterAll(() => api?.close());

const exchange = (method: string, path: string, answer: ApiResponse): Exchange => ({
  method,
  path,
  ...answer,
});
const json = (body: unknown, contentType = 'application/json; charset=utf-8') => ({
  body,
  text: JSON.stringify(body),
  headers: new Headers({ 'content-type': contentType }),
});

describe('a product read through both versions', () => {
  let id: string;
  let v2: ApiResponse;
  beforeAll(async () => {
    id = (await createProduct(api)).id;
    v2 = await api.get(`/api/v2/products/${id}`);
  });
  const path = () => `/api/v2/products/${id}`;

  it('passes the answer the server gave', async () => {
    expect(v2.status).toBe(200);
    expect(conformance.problems(exchange('GET', path(), v2))).toEqual([]);
    const v1 = await api.get(`/api/v1/products/${id}`);
    expect(conformance.problems(exchange('GET', `/api/v1/products/${id}`, v1))).toEqual([]);
  });

  it('names a field of the wrong type and a field the schema does not declare', () => {
    const changed = { ...v2, ...json({ ...v2.body, version: '1', colour: 'red' }) };

    const problems = conformance.problems(exchange('GET', path(), changed));

    expect(problems).toEqual([
      expect.stringMatching(
        /^GET \/api\/v2\/products\/\{id\} → 200: body must NOT have additional properties .*colour/,
      ),
      expect.stringMatching(
        /^GET \/api\/v2\/products\/\{id\} → 200: body\/version must be integer/,
      ),
    ]);
  });

  it('checks v1 against the v1 document: a v2 money object is not a v1 price', () => {
    const v1Shaped = { ...v2, ...json(v2.body) };
    const problems = conformance.problems(exchange('GET', `/api/v1/products/${id}`, v1Shaped));
    expect(problems.join('\n')).toMatch(/body\/price must be string/);
  });

  it('refuses a status the operation does not document', () => {
    const teapot = { ...v2, status: 418 };
    expect(conformance.problems(exchange('GET', path(), teapot))).toEqual([
      'GET /api/v2/products/{id} → 418: status not documented',
    ]);
  });

  it('refuses a media type the response does not document', () => {
    const html = { ...v2, ...json(v2.body, 'text/html') };
    expect(conformance.problems(exchange('GET', path(), html))).toEqual([
      'GET /api/v2/products/{id} → 200: media type "text/html" not documented',
    ]);
  });

  it('checks the value of each documented header the answer carries', () => {
    const headers = new Headers(v2.headers);
    headers.set('etag', 'W/"1"');
    headers.set('ratelimit', 'plenty');

    const problems = conformance.problems(exchange('GET', path(), { ...v2, headers }));

    expect(problems).toEqual([
      expect.stringMatching(
        /^GET \/api\/v2\/products\/\{id\} → 200: header RateLimit: "plenty" must match/,
      ),
      expect.stringMatching(/→ 200: header ETag: "W\/\\"1\\"" must match pattern/),
    ]);
  });

  it('checks a problem against the shared Problem schema', () => {
    const problem = {
      status: 404,
      ...json({ type: 'x', title: 'Not found', status: 404 }, 'application/problem+json'),
    };
    const problems = conformance.problems(exchange('GET', path(), problem));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/→ 404: body must have required property 'code'/),
      ]),
    );
  });

  it('refuses a body on an answer documented without one', () => {
    const deleted = { ...v2, status: 204, headers: new Headers() };
    expect(conformance.problems(exchange('DELETE', path(), deleted))).toEqual([
      'DELETE /api/v2/products/{id} → 204: a body where none is documented',
    ]);
  });

  it('refuses a header of the contract the answer does not document', () => {
    const deleted = { status: 204, headers: new Headers({ etag: '"2"' }), body: '', text: '' };
    expect(conformance.problems(exchange('DELETE', path(), deleted))).toEqual([
      'DELETE /api/v2/products/{id} → 204: header ETag sent but not documented',
    ]);
  });
});

it('leaves alone what no operation documents: unknown paths and methods', async () => {
  const unknown = await api.get('/api/v2/nothing-here');
  const wrongMethod = await api.request('DELETE', '/api/v2/products');
  expect([unknown.status, wrongMethod.status]).toEqual([404, 405]);
  expect(conformance.problems(exchange('GET', '/api/v2/nothing-here', unknown))).toEqual([]);
  expect(conformance.problems(exchange('DELETE', '/api/v2/products', wrongMethod))).toEqual([]);
});
