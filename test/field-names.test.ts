import { resolve } from './support/openapi-conformance';
import { expectProblem, ProblemBody } from './support/problem';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §3 and §7: a refused value is named exactly, and what the documents allow is
 * taken. An array member that fails a per-member rule is named `field[i]`, not the array;
 * an id filter takes any UUID `format: uuid` allows, not only the versions we mint.
 */
let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});
afterAll(() => api?.close());

const errorsOf = (problem: ProblemBody) => problem.errors ?? [];
/** A public OAuth client's registration, with `overrides`. */
const oauthClient = (overrides: Record<string, unknown>) => ({
  name: 'Members',
  public: true,
  redirectUris: ['https://example.com/ok'],
  scopes: ['products:read'],
  ...overrides,
});
let counter = 0;

describe('a refused array member is named by its index', () => {
  it.each([
    [
      'an unknown webhook event',
      '/api/v1/webhook-endpoints',
      () => ({ url: 'https://example.com/hook', events: ['order.created', 'order.shipped'] }),
      'events[1]',
      /^must be one of the following values: /,
    ],
    [
      'an unknown role',
      '/api/v1/users',
      () => ({
        email: `member-${Date.now()}-${++counter}@example.com`,
        password: 'correct horse battery staple',
        roles: ['analyst', 'root'],
      }),
      'roles[1]',
      /^must be one of the following values: /,
    ],
    [
      'an unknown OAuth scope',
      '/api/v1/oauth-clients',
      () => oauthClient({ scopes: ['products:read', 'products:delete'] }),
      'scopes[1]',
      /^must be one of the following values: /,
    ],
    [
      'a redirect URI with a space',
      '/api/v1/oauth-clients',
      () => oauthClient({ redirectUris: ['https://example.com/ok', 'https://example.com/c b'] }),
      'redirectUris[1]',
      /^must be an absolute http\(s\) URI/,
    ],
    [
      'an over-long redirect URI',
      '/api/v1/oauth-clients',
      () =>
        oauthClient({
          redirectUris: ['https://example.com/ok', `https://example.com/${'a'.repeat(2000)}`],
        }),
      'redirectUris[1]',
      /^must be shorter than or equal to 2000 characters$/,
    ],
  ])('%s', async (_case, path, body, field, message) => {
    const response = await api.post(path, body());

    const errors = errorsOf(expectProblem(response, 422, 'validation_failed'));
    expect(errors).toEqual([{ field, message: expect.stringMatching(message) }]);
  });

  it('names a member once for each rule it fails', async () => {
    const response = await api.post('/api/v2/webhook-endpoints', {
      url: 'https://example.com/hook',
      events: ['order.created', 7],
    });

    const errors = errorsOf(expectProblem(response, 422, 'validation_failed'));
    expect(errors).toEqual([
      { field: 'events[1]', message: expect.stringMatching(/^must be one of the following/) },
      { field: 'events[1]', message: 'must be a string' },
    ]);
  });

  it('names every failing member, and only those', async () => {
    const response = await api.post('/api/v1/webhook-endpoints', {
      url: 'https://example.com/hook',
      events: ['nope', 'order.created', 'also.nope'],
    });

    const errors = errorsOf(expectProblem(response, 422, 'validation_failed'));
    expect(errors.map((e) => e.field)).toEqual(['events[0]', 'events[2]']);
  });
});

describe('id filters and references take any UUID', () => {
  // not minted by us (version 0, the nil UUID, variant 0): they name nothing, they are not malformed
  const unminted = [
    '00000000-0000-0000-0000-000000000000',
    '12345678-1234-0234-0234-123456789abc',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  ];

  it.each(unminted.flatMap((id) => ['invoices', 'shipments'].map((c) => [c, id])))(
    'GET /%s?orderId=%s finds nothing (200), not a 400',
    async (collection, id) => {
      const response = await api.get(`/api/v1/${collection}?orderId=${id}`);

      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
    },
  );

  it.each(unminted.flatMap((id) => ['invoices', 'shipments'].map((c) => [c, id])))(
    'POST /%s with orderId %s is 422: no such order',
    async (collection, id) => {
      const body = collection === 'shipments' ? { orderId: id, carrier: 'DHL' } : { orderId: id };
      const response = await api.post(`/api/v1/${collection}`, body);

      const errors = errorsOf(expectProblem(response, 422, 'validation_failed'));
      expect(errors).toEqual([{ field: 'orderId', message: expect.not.stringMatching(/UUID/) }]);
    },
  );

  it('still refuses what is not a UUID, in one message', async () => {
    const filter = await api.get('/api/v1/invoices?orderId=0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a1');
    const body = await api.post('/api/v1/shipments', { orderId: 'order-1', carrier: 'DHL' });

    expect(errorsOf(expectProblem(filter, 400, 'bad_request'))).toEqual([
      { field: 'orderId', message: 'must be a UUID' },
    ]);
    expect(errorsOf(expectProblem(body, 422, 'validation_failed'))).toEqual([
      { field: 'orderId', message: 'must be a UUID' },
    ]);
  });
});

describe("a user's roles", () => {
  it('take every staff role at once, the longest list the documents allow', async () => {
    const doc = (await api.get('/docs/v1/openapi.json', { auth: false })).body;
    const roles = resolve(
      doc,
      doc.paths['/api/v1/users'].post.requestBody.content['application/json'].schema,
    ).properties.roles;
    const staff = (roles.items.enum as string[]).filter((role) => role !== 'customer');

    const response = await api.post('/api/v1/users', {
      email: `every-role-${Date.now()}@example.com`,
      password: 'correct horse battery staple',
      roles: staff,
    });

    expect(response.status).toBe(201);
    expect(response.body.roles).toHaveLength(roles.maxItems);
  });
});
