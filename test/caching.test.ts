import { readdirSync } from 'node:fs';
import { createProduct, productBody } from './support/factories';
import { expectProblem } from './support/problem';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/** API.md §5: validators, conditional GET and optimistic concurrency with If-Match. */

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

const STRONG_ETAG = /^"[^"]+"$/;

function expectCacheHeaders(response: ApiResponse) {
  expect(response.headers.get('etag')).toMatch(STRONG_ETAG);
  expect(response.headers.get('cache-control')).toBe('private, no-cache');
  const vary = (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
  expect(vary).toEqual(expect.arrayContaining(['authorization', 'x-api-key']));
}

/** The part of an OpenAPI document these tests read: the header parameters of an operation. */
interface OpenApiHeaders {
  paths: Record<
    string,
    Record<string, { parameters: { name: string; schema: { maxLength?: number } }[] }>
  >;
}

/** The `maxLength` /docs/v1 gives `header` on `method` of one product. */
async function documentedMaxLength(method: 'get' | 'patch', header: string): Promise<number> {
  const documented = (await api.get('/docs/v1/openapi.json')).body as OpenApiHeaders;
  const operation = documented.paths['/api/v1/products/{id}'][method];
  return operation.parameters.find((p) => p.name === header)?.schema.maxLength as number;
}

const productPath = (id: string, version = 1) => `/api/v${version}/products/${id}`;

/** A full v1 body for PUT, from a product as GET shows it. */
const replacement = (product: Record<string, unknown>, changes: Record<string, unknown> = {}) => ({
  sku: product.sku,
  name: product.name,
  description: product.description,
  category: product.category,
  price: product.price,
  currency: product.currency,
  active: product.active,
  ...changes,
});

describe('conditional GET of one resource', () => {
  it('answers with a strong ETag, Cache-Control private, no-cache and Vary on the credential headers', async () => {
    const product = await createProduct(api);

    const response = await api.get(productPath(product.id));

    expect(response.status).toBe(200);
    expectCacheHeaders(response);
    expect(response.headers.get('etag')).not.toMatch(/^W\//);
  });

  it.each([
    ['v1', 1],
    ['v2', 2],
  ])('tags the %s representation the same way', async (_v, version) => {
    const product = await createProduct(api);

    const response = await api.get(productPath(product.id, version));

    expect(response.status).toBe(200);
    expectCacheHeaders(response);
  });

  it('answers If-None-Match with the current ETag with 304 and an empty body', async () => {
    const product = await createProduct(api);
    const etag = (await api.get(productPath(product.id))).headers.get('etag') as string;

    const response = await api.get(productPath(product.id), { headers: { 'If-None-Match': etag } });

    expect(response.status).toBe(304);
    expect(response.text).toBe('');
    expect(response.headers.get('etag')).toBe(etag);
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
  });

  // RFC 9110 §8.6: a 304 may carry Content-Length only with the length a 200 would have.
  it.each([['GET'], ['HEAD']])(
    'sends no Content-Length on a 304 to %s, of one resource or of a list',
    async (method) => {
      const product = await createProduct(api);
      for (const path of [productPath(product.id), '/api/v1/products?limit=2']) {
        const etag = (await api.get(path)).headers.get('etag') as string;

        const response = await api.request(method, path, { headers: { 'If-None-Match': etag } });

        expect([path, response.status, response.headers.get('content-length')]).toEqual([
          path,
          304,
          null,
        ]);
      }
    },
  );

  it('answers If-None-Match with the weak form of the current ETag with 304', async () => {
    const product = await createProduct(api);
    const etag = (await api.get(productPath(product.id))).headers.get('etag') as string;

    const response = await api.get(productPath(product.id), {
      headers: { 'If-None-Match': `W/${etag}` },
    });

    expect(response.status).toBe(304);
    expect(response.text).toBe('');
  });

  it('answers If-None-Match with a list holding the current ETag with 304', async () => {
    const product = await createProduct(api);
    const etag = (await api.get(productPath(product.id))).headers.get('etag') as string;

    const response = await api.get(productPath(product.id), {
      headers: { 'If-None-Match': `"some-other-tag", ${etag}` },
    });

    expect(response.status).toBe(304);
    expect(response.text).toBe('');
  });

  it.each([['garbage'], [`"${'a'.repeat(2000)}"`]])(
    'answers a malformed If-None-Match (%#), which matches nothing, with 200 and the body',
    async (value) => {
      const product = await createProduct(api);

      const response = await api.get(productPath(product.id), {
        headers: { 'If-None-Match': value },
      });

      expect(response.status).toBe(200);
      expect(response.body.id).toBe(product.id);
    },
  );

  it('answers If-None-Match with an outdated ETag with 200, the new body and the new ETag', async () => {
    const product = await createProduct(api);
    const old = (await api.get(productPath(product.id))).headers.get('etag') as string;
    const patched = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Renamed' },
    });
    expect(patched.status).toBe(200);

    const response = await api.get(productPath(product.id), { headers: { 'If-None-Match': old } });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Renamed', version: 2 });
    expect(response.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(response.headers.get('etag')).not.toBe(old);
  });

  it('answers an If-None-Match as long as the documents allow like any other', async () => {
    const maxLength = await documentedMaxLength('get', 'If-None-Match');
    const product = await createProduct(api);
    const etag = (await api.get(productPath(product.id))).headers.get('etag') as string;
    const longest = `"${'a'.repeat(maxLength - 4 - etag.length)}", ${etag}`;

    const response = await api.get(productPath(product.id), {
      headers: { 'If-None-Match': longest },
    });

    expect(longest).toHaveLength(maxLength);
    expect(response.status).toBe(304);
    expect(response.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
  });
});

describe('Cache-Control on the answers that are no 200 to a GET', () => {
  it('is private, no-cache on errors to a GET, so no cache reuses a 404 once the resource exists', async () => {
    const answers = await Promise.all([
      api.get(productPath('0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11')),
      api.get('/api/v1/products', { auth: false }),
      api.get('/api/v1/products?colour=red'),
      api.get('/api/v1/nothing-here'),
    ]);
    expect(answers.map((r) => r.status)).toEqual([404, 401, 400, 404]);
    for (const response of answers) {
      expect(response.headers.get('cache-control')).toBe('private, no-cache');
    }
  });

  it('is private, no-cache on the answers to writes, successes and refusals alike', async () => {
    const created = await api.post('/api/v1/products', productBody());
    const refused = await api.post('/api/v1/products', { name: '' });
    expect([created.status, refused.status]).toEqual([201, 422]);
    expect(created.headers.get('cache-control')).toBe('private, no-cache');
    expect(refused.headers.get('cache-control')).toBe('private, no-cache');
  });
});

describe('conditional GET of a collection', () => {
  const listPath = '/api/v1/products?category=cache-list&sort=id';

  it('answers with a strong ETag and the cache headers, then 304 for If-None-Match with it', async () => {
    await createProduct(api, { category: 'cache-list' });
    const first = await api.get(listPath);
    expect(first.status).toBe(200);
    expectCacheHeaders(first);

    const again = await api.get(listPath, {
      headers: { 'If-None-Match': first.headers.get('etag') as string },
    });

    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('answers 200 with a new ETag once the collection changed', async () => {
    await createProduct(api, { category: 'cache-list' });
    const before = await api.get(listPath);
    await createProduct(api, { category: 'cache-list' });

    const after = await api.get(listPath, {
      headers: { 'If-None-Match': before.headers.get('etag') as string },
    });

    expect(after.status).toBe(200);
    expect(after.body.pagination.total).toBe(before.body.pagination.total + 1);
    expect(after.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('tags the inventory collection and a stock level too', async () => {
    const product = await createProduct(api);

    const list = await api.get('/api/v2/inventory');
    const item = await api.get(`/api/v2/inventory/${product.sku}`);

    for (const response of [list, item]) {
      expect(response.status).toBe(200);
      expectCacheHeaders(response);
    }
  });
});

describe('conditional GET outside /api', () => {
  it.each([
    ['the authorization server metadata', '/.well-known/oauth-authorization-server'],
    ['the OpenID configuration', '/.well-known/openid-configuration'],
    ['the signing keys', '/oauth/jwks'],
    ['a file of the docs UI', '/docs/swagger-ui.css'],
    ['a script of the docs UI', '/docs/swagger-ui-bundle.js'],
  ])('tags %s strongly and answers 304 for If-None-Match with the tag', async (_, path) => {
    const first = await api.get(path, { auth: false });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(STRONG_ETAG);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');

    const again = await api.get(path, { auth: false, headers: { 'If-None-Match': etag } });
    const changed = await api.get(path, { auth: false, headers: { 'If-None-Match': '"other"' } });

    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('content-length')).toBeNull();
    expect(changed.status).toBe(200);
    expect(changed.text).toBe(first.text);
  });

  it('closes the file a 304 for the docs UI does not send', async () => {
    const path = '/docs/swagger-ui.css';
    const etag = (await api.get(path, { auth: false })).headers.get('etag') as string;
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();

    for (let i = 0; i < 40; i++) {
      const response = await api.get(path, { auth: false, headers: { 'If-None-Match': etag } });
      expect(response.status).toBe(304);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(openFiles() - before).toBeLessThan(10);
  });
});

describe('If-Match on writes', () => {
  /** The product as stored now, with its ETag. */
  async function current(id: string) {
    const response = await api.get(productPath(id));
    expect(response.status).toBe(200);
    return { body: response.body, etag: response.headers.get('etag') as string };
  }

  it('returns the ETag of the new resource on creation', async () => {
    const response = await api.post('/api/v1/products', productBody());

    expect(response.status).toBe(201);
    expect(response.body.version).toBe(1);
    expect(response.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(response.headers.get('etag')).toBe((await current(response.body.id)).etag);
  });

  it.each([
    ['PUT', (p: Record<string, unknown>) => replacement(p, { name: 'Overwritten' })],
    ['PATCH', () => ({ name: 'Overwritten' })],
    ['DELETE', () => undefined],
  ])('refuses %s with a stale If-Match with 412 and changes nothing', async (method, body) => {
    const product = await createProduct(api);
    const stale = (await current(product.id)).etag;
    const patched = await api.request('PATCH', productPath(product.id), {
      body: { price: '7.00' },
    });
    expect(patched.status).toBe(200);
    const before = await current(product.id);

    const response = await api.request(method, productPath(product.id), {
      body: body(before.body),
      headers: { 'If-Match': stale },
    });

    expectProblem(response, 412, 'precondition_failed');
    expect(await current(product.id)).toEqual(before);
    expect(before.body).toMatchObject({ version: 2, price: '7.00', name: product.name });
  });

  it.each([
    ['garbage', 'garbage'],
    ['a tag of 11 digits', '"12345678901"'],
    ['a tag of 100 characters', `"${'a'.repeat(98)}"`],
  ])('refuses a malformed If-Match (%s), which matches nothing, with 412', async (_, value) => {
    const product = await createProduct(api);
    const before = await current(product.id);

    const response = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Never applied' },
      headers: { 'If-Match': value },
    });

    expectProblem(response, 412, 'precondition_failed');
    expect(await current(product.id)).toEqual(before);
  });

  it('refuses the current version with a leading zero, which is not the same tag, with 412', async () => {
    const product = await createProduct(api);
    const before = await current(product.id);

    const response = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Matched by number only' },
      headers: { 'If-Match': before.etag.replace('"', '"0') },
    });

    expectProblem(response, 412, 'precondition_failed');
    expect(await current(product.id)).toEqual(before);
  });

  it('refuses a weak If-Match, which never matches for a write, with 412', async () => {
    const product = await createProduct(api);
    const before = await current(product.id);

    const response = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Weakly matched' },
      headers: { 'If-Match': `W/${before.etag}` },
    });

    expectProblem(response, 412, 'precondition_failed');
    expect(await current(product.id)).toEqual(before);
  });

  it('applies PUT with the current If-Match and answers 200 with the new ETag', async () => {
    const product = await createProduct(api);
    const before = await current(product.id);

    const response = await api.request('PUT', productPath(product.id), {
      body: replacement(before.body, { name: 'Replaced', price: '1.50' }),
      headers: { 'If-Match': before.etag },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Replaced', price: '1.50', version: 2 });
    expect(response.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(response.headers.get('etag')).not.toBe(before.etag);
    expect(await current(product.id)).toEqual({
      body: response.body,
      etag: response.headers.get('etag'),
    });
  });

  it('applies PATCH with the current If-Match and answers 200 with the new ETag', async () => {
    const product = await createProduct(api);
    const before = await current(product.id);

    const response = await api.request('PATCH', productPath(product.id), {
      body: { active: false },
      headers: { 'If-Match': before.etag },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ active: false, version: 2 });
    expect(response.headers.get('etag')).not.toBe(before.etag);
    expect((await current(product.id)).etag).toBe(response.headers.get('etag'));
  });

  it('applies DELETE with the current If-Match: 204, then the product is gone', async () => {
    const product = await createProduct(api);
    const before = await current(product.id);

    const response = await api.request('DELETE', productPath(product.id), {
      headers: { 'If-Match': before.etag },
    });

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectProblem(await api.get(productPath(product.id)), 404, 'not_found');
  });

  it('applies a write with If-Match: * whatever the version', async () => {
    const product = await createProduct(api);
    await api.request('PATCH', productPath(product.id), { body: { name: 'First change' } });

    const response = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Second change' },
      headers: { 'If-Match': '*' },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Second change', version: 3 });
  });

  it('applies a write whose If-Match lists the current ETag among others', async () => {
    const product = await createProduct(api);
    const before = await current(product.id);

    const response = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Listed' },
      headers: { 'If-Match': `"999", ${before.etag}` },
    });

    expect(response.status).toBe(200);
    expect(response.body.version).toBe(2);
  });

  it('grows version by exactly one per change and not at all for a refused write', async () => {
    const product = await createProduct(api);
    const versions: number[] = [product.version];

    for (const change of [{ name: 'One' }, { price: '3.00' }, { description: 'Three' }]) {
      const response = await api.request('PATCH', productPath(product.id), { body: change });
      expect(response.status).toBe(200);
      versions.push(response.body.version);
    }
    const refused = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Refused' },
      headers: { 'If-Match': '"1"' },
    });
    const invalid = await api.request('PATCH', productPath(product.id), { body: { name: '' } });
    const put = await api.request('PUT', productPath(product.id), {
      body: replacement((await current(product.id)).body, { name: 'Four' }),
    });

    expectProblem(refused, 412, 'precondition_failed');
    expectProblem(invalid, 422, 'validation_failed');
    expect(put.status).toBe(200);
    versions.push(put.body.version);
    expect(versions).toEqual([1, 2, 3, 4, 5]);
    expect((await current(product.id)).body).toMatchObject({ version: 5, name: 'Four' });
  });

  it('answers an If-Match as long as the documents allow, matching nothing, with 412 and its headers', async () => {
    const maxLength = await documentedMaxLength('patch', 'If-Match');
    const product = await createProduct(api);
    const longest = `"${'9'.repeat(maxLength - 2)}"`;

    const response = await api.request('PATCH', productPath(product.id), {
      body: { name: 'Never' },
      headers: { 'If-Match': longest },
    });

    expect(longest).toHaveLength(maxLength);
    expectProblem(response, 412, 'precondition_failed');
    expect(response.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    expect((await api.get(productPath(product.id))).body).toMatchObject({ version: 1 });
  });

  it('refuses a stale If-Match on /api/v2 and on the inventory too', async () => {
    const product = await createProduct(api);
    await api.request('PATCH', productPath(product.id), { body: { name: 'Moved on' } });
    const stock = await api.get(`/api/v1/inventory/${product.sku}`);

    const v2 = await api.request('PATCH', productPath(product.id, 2), {
      body: { name: 'Late' },
      headers: { 'If-Match': '"1"' },
    });
    const inventory = await api.request('PATCH', `/api/v1/inventory/${product.sku}`, {
      body: { reorderLevel: 5 },
      headers: { 'If-Match': `"${stock.body.version + 1}"` },
    });

    expectProblem(v2, 412, 'precondition_failed');
    expectProblem(inventory, 412, 'precondition_failed');
    expect((await api.get(`/api/v1/inventory/${product.sku}`)).body).toEqual(stock.body);
  });
});

describe('Vary on the credential headers', () => {
  /** Every answer depends on who asks, so a shared cache must key it by the credentials. */
  function expectVaryOnCredentials(response: ApiResponse) {
    const vary = (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(vary).toEqual(expect.arrayContaining(['origin', 'authorization', 'x-api-key']));
    // each once, however many parts of the app touched the header
    expect(new Set(vary).size).toBe(vary.length);
  }

  let analystKey: string;

  beforeAll(async () => {
    const created = await api.post('/api/v1/api-keys', { name: 'vary test', role: 'analyst' });
    expect(created.status).toBe(201);
    analystKey = created.body.key as string;
  });

  it.each([
    ['a 200 GET', () => api.get('/api/v1/products'), 200],
    ['a 201 creation', () => api.post('/api/v1/products', productBody()), 201],
    [
      'a 200 write',
      async () => {
        const product = await createProduct(api);
        return api.request('PATCH', productPath(product.id), { body: { name: 'Varied' } });
      },
      200,
    ],
    [
      'a 204 deletion',
      async () => api.request('DELETE', productPath((await createProduct(api)).id)),
      204,
    ],
    ['a 401', () => api.get('/api/v1/products', { auth: false }), 401],
    [
      'a 403',
      () =>
        api.post('/api/v1/products', productBody(), {
          auth: false,
          headers: { 'X-API-Key': analystKey },
        }),
      403,
    ],
    ['a 404', () => api.get(productPath('01890000-0000-7000-8000-000000000000')), 404],
    ['a 405', () => api.request('DELETE', '/api/v1/products'), 405],
    ['a 422', () => api.post('/api/v1/products', { sku: '' }), 422],
  ])('is on %s', async (_name, send, status) => {
    const response = await send();

    expect(response.status).toBe(status);
    expectVaryOnCredentials(response);
  });

  it('is on a 304', async () => {
    const product = await createProduct(api);
    const etag = (await api.get(productPath(product.id))).headers.get('etag') as string;

    const response = await api.get(productPath(product.id), { headers: { 'If-None-Match': etag } });

    expect(response.status).toBe(304);
    expectVaryOnCredentials(response);
  });
});
