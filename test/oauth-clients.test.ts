import { expectProblem, fieldsOf } from './support/problem';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §3 `/oauth-clients`: admins register the clients of the built-in authorization
 * server; a confidential client's secret is shown once; redirect URIs are exact.
 */

let api: TestApp;

const body = (overrides: Record<string, unknown> = {}) => ({
  name: 'Warehouse dashboard',
  redirectUris: ['https://dashboard.example.com/callback'],
  public: false,
  scopes: ['products:read', 'orders:read'],
  ...overrides,
});

/** client_credentials at the token endpoint, with HTTP Basic client authentication. */
function clientCredentials(clientId: string, secret: string) {
  return fetch(`${api.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=products%3Aread',
  });
}

beforeAll(async () => {
  api = await startTestApp({ RATE_LIMIT_PER_HOUR: '1000000' });
});

afterAll(async () => {
  await api?.close();
});

it('registers a confidential client, showing its secret once', async () => {
  const created = await api.post('/api/v1/oauth-clients', body());

  expect(created.status).toBe(201);
  expect(created.headers.get('location')).toMatch(
    new RegExp(`/api/v1/oauth-clients/${created.body.id}$`),
  );
  expect(created.body).toEqual({
    id: expect.any(String),
    clientId: expect.stringMatching(/^cli_[A-Za-z0-9_-]{22}$/),
    name: 'Warehouse dashboard',
    redirectUris: ['https://dashboard.example.com/callback'],
    public: false,
    scopes: ['products:read', 'orders:read'],
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    clientSecret: expect.stringMatching(/^cs_[A-Za-z0-9_-]{43}$/),
    version: 1,
    createdAt: expect.any(String),
    updatedAt: expect.any(String),
  });
  const read = await api.get(`/api/v1/oauth-clients/${created.body.id}`);
  expect(read.status).toBe(200);
  expect(read.body.clientSecret).toBeUndefined();
  const list = await api.get('/api/v2/oauth-clients?limit=100');
  expect(list.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
  expect(list.text).not.toContain(created.body.clientSecret);
  expect((await clientCredentials(created.body.clientId, created.body.clientSecret)).status).toBe(
    200,
  );
});

it('registers a public client without a secret, for the code flow only', async () => {
  const created = await api.post('/api/v1/oauth-clients', body({ public: true }));

  expect(created.status).toBe(201);
  expect(created.body.clientSecret).toBeUndefined();
  expect(created.body.grantTypes).toEqual(['authorization_code', 'refresh_token']);
});

it.each([
  ['a public client without redirect URIs', { public: true, redirectUris: [] }, 'redirectUris'],
  [
    'an http redirect URI off loopback',
    { redirectUris: ['http://example.com/cb'] },
    'redirectUris[0]',
  ],
  ['a redirect URI with a space', { redirectUris: ['https://example.com/c b'] }, 'redirectUris'],
  [
    'a redirect URI with brackets',
    { redirectUris: ['https://example.com/x?a=[1]'] },
    'redirectUris',
  ],
  [
    'a redirect URI with a non-ASCII character',
    { redirectUris: ['https://example.com/é'] },
    'redirectUris',
  ],
  [
    'a redirect URI with a fragment',
    { redirectUris: ['https://example.com/cb#x'] },
    'redirectUris',
  ],
  [
    'a redirect URI with a wildcard host',
    { redirectUris: ['https://*.example.com/cb'] },
    'redirectUris[0]',
  ],
  ['an unknown scope', { scopes: ['products:delete'] }, 'scopes[0]'],
  ['no scope', { scopes: [] }, 'scopes'],
  ['an unknown field', { secret: 'mine' }, 'secret'],
])('refuses %s with 422', async (_, overrides, field) => {
  const response = await api.post('/api/v1/oauth-clients', body(overrides));

  const problem = expectProblem(response, 422, 'validation_failed');
  expect(fieldsOf(problem).some((f) => f.startsWith(field))).toBe(true);
});

it('changes the fields a PATCH sends, and refuses to change whether a client is public', async () => {
  const { body: created } = await api.post('/api/v1/oauth-clients', body());

  const patched = await api.request('PATCH', `/api/v1/oauth-clients/${created.id}`, {
    body: { name: 'Renamed', scopes: ['products:read'] },
  });
  const publicity = await api.request('PATCH', `/api/v1/oauth-clients/${created.id}`, {
    body: { public: true },
  });

  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({
    name: 'Renamed',
    scopes: ['products:read'],
    redirectUris: created.redirectUris,
    version: 2,
  });
  expectProblem(publicity, 422, 'validation_failed');
});

it('deletes a client: its credentials stop working at once, and a second DELETE is 404', async () => {
  const { body: created } = await api.post('/api/v1/oauth-clients', body());

  const deleted = await api.request('DELETE', `/api/v1/oauth-clients/${created.id}`);
  const again = await api.request('DELETE', `/api/v1/oauth-clients/${created.id}`);
  const token = await clientCredentials(created.clientId, created.clientSecret);

  expect(deleted.status).toBe(204);
  expectProblem(again, 404, 'not_found');
  expect(token.status).toBe(401);
  expect(await token.json()).toMatchObject({ error: 'invalid_client' });
});

it('is for admins only', async () => {
  const key = await api.post('/api/v1/api-keys', { name: 'ops', role: 'operations' });
  expect(key.status).toBe(201);

  const response = await api.get('/api/v1/oauth-clients', {
    auth: false,
    headers: { 'X-API-Key': key.body.key },
  });

  expectProblem(response, 403, 'forbidden');
});
