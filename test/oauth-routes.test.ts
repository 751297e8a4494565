import { DOCS_CLIENT_ID } from '../src/auth/oauth/oauth-client-metadata';
import { oauthMethodsOf } from '../src/auth/oauth/oauth-routes';
import { expectProblem, PROBLEM_CONTENT_TYPE } from './support/problem';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §1 at the built-in authorization server's edges: an unknown path under /oauth
 * is the API's 404 problem, and a known /oauth or /.well-known path under a method it
 * does not take is a 405 problem with `Allow`, as on every other path (oidc-provider
 * alone would answer a plain-text "Not Found").
 */

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

let api: TestApp;

beforeAll(async () => {
  api = await startTestApp();
});

afterAll(async () => {
  await api?.close();
});

const allowOf = (response: { headers: Headers }) => response.headers.get('allow');

it.each([
  ['GET', '/oauth/nope'],
  ['GET', '/oauth'],
  ['POST', '/oauth/nope/deeper?x=1'],
  ['DELETE', '/oauth/token/nope'],
  // the shape of a served path, with the method it takes, that nothing answers: no 405
  // telling the client to use the method it used
  ['GET', '/oauth/interaction/%C3%A9'],
  ['GET', '/oauth/interaction/abc/'],
  ['POST', '/oauth/interaction/%00/login'],
])(
  'answers %s %s, which the authorization server does not serve, with the 404 problem',
  async (method, path) => {
    const response = await api.request(method, path, { auth: false });

    const problem = expectProblem(response, 404, 'not_found');
    expect(problem.instance).toBe(path.split('?')[0]);
    expect(allowOf(response)).toBeNull();
  },
);

it.each([
  ['POST', '/.well-known/openid-configuration', 'GET, HEAD'],
  ['PUT', '/.well-known/oauth-authorization-server', 'GET, HEAD'],
  ['DELETE', '/.well-known/openid-configuration', 'GET, HEAD'],
  ['DELETE', '/oauth/jwks', 'GET, HEAD'],
  ['PUT', '/oauth/token', 'POST'],
  ['GET', '/oauth/token', 'POST'],
  ['GET', '/oauth/token/revocation', 'POST'],
  // not a CORS preflight (no Origin): OPTIONS is served for those only
  ['OPTIONS', '/oauth/token', 'POST'],
  ['OPTIONS', '/oauth/jwks', 'GET, HEAD'],
  ['OPTIONS', '/.well-known/openid-configuration', 'GET, HEAD'],
  ['POST', '/oauth/interaction/abc', 'GET'],
  ['GET', '/oauth/interaction/abc/login', 'POST'],
])('answers %s %s with the 405 problem and Allow: %s', async (method, path, allow) => {
  const response = await api.request(method, path, { auth: false });

  const problem = expectProblem(response, 405, 'method_not_allowed');
  expect(problem.instance).toBe(path);
  expect(allowOf(response)).toBe(allow);
  expect(response.headers.get('cache-control')).toBe('private, no-cache');
});

it('answers HEAD on an unknown path with the 404 status and the problem type, no body', async () => {
  const response = await api.request('HEAD', '/oauth/nope', { auth: false });

  expect(response.status).toBe(404);
  expect(response.headers.get('content-type')).toMatch(PROBLEM_CONTENT_TYPE);
  expect(response.text).toBe('');
});

describe('the methods table', () => {
  // as the client sends them, and as oidc-provider sees them (mount point cut off, root
  // discovery paths mapped to its own)
  const PATHS: [string, string][] = [
    ['/oauth/auth', '/auth'],
    ['/oauth/auth/some-uid', '/auth/some-uid'],
    ['/oauth/token', '/token'],
    ['/oauth/token/revocation', '/token/revocation'],
    ['/oauth/jwks', '/jwks'],
    ['/oauth/request', '/request'],
    ['/oauth/session/end/confirm', '/session/end/confirm'],
    ['/oauth/.well-known/openid-configuration', '/.well-known/openid-configuration'],
    ['/oauth/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server'],
    ['/.well-known/openid-configuration', '/.well-known/openid-configuration'],
    ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'],
    ['/oauth/interaction/some-uid', '/interaction/some-uid'],
    ['/oauth/interaction/some-uid/login', '/interaction/some-uid/login'],
  ];

  it.each(PATHS)(
    'matches what the server does on %s: its methods are served, any other is 405',
    async (path, providerPath) => {
      const allowed = oauthMethodsOf(providerPath);
      expect(allowed.length).toBeGreaterThan(0);

      for (const method of METHODS) {
        const response = await api.request(method, path, { auth: false });
        const ours =
          [404, 405].includes(response.status) &&
          PROBLEM_CONTENT_TYPE.test(response.headers.get('content-type') ?? '');
        if (allowed.includes(method)) {
          expect([method, ours]).toEqual([method, false]);
        } else {
          expect([method, response.status, allowOf(response)]).toEqual([
            method,
            405,
            allowed.join(', '),
          ]);
        }
      }
    },
  );
});

describe('with PUBLIC_URL', () => {
  let behindProxy: TestApp;

  beforeAll(async () => {
    behindProxy = await startTestApp({ PUBLIC_URL: 'https://api.example.com' });
  });

  afterAll(async () => {
    await behindProxy?.close();
  });

  it.each([['/.well-known/oauth-authorization-server'], ['/.well-known/openid-configuration']])(
    'names every endpoint of %s under PUBLIC_URL, as its issuer, whatever host and scheme the request came in on',
    async (path) => {
      const response = await behindProxy.get(path, { auth: false });

      expect(response.status).toBe(200);
      const metadata = response.body as Record<string, unknown>;
      expect(metadata.issuer).toBe('https://api.example.com');
      const endpoints = Object.entries(metadata).filter(
        ([name, value]) => /_(endpoint|uri)$/.test(name) && typeof value === 'string',
      );
      expect(endpoints.map(([name]) => name)).toEqual(
        expect.arrayContaining(['token_endpoint', 'authorization_endpoint', 'jwks_uri']),
      );
      for (const [name, value] of endpoints) {
        expect([name, value]).toEqual([
          name,
          expect.stringMatching(/^https:\/\/api\.example\.com\/oauth\//),
        ]);
      }
    },
  );
});

describe('a NUL character (U+0000), which no stored value holds', () => {
  it.each([
    ['/oauth/auth?client_id=%00', 'client_id'],
    ['/oauth/auth?response_type=code&client_id=a%00b', 'client_id'],
    ['/.well-known/openid-configuration?x=%00', 'x'],
  ])('in the query of %s is the 400 problem naming %s, not a 500', async (path, field) => {
    const response = await api.get(path, { auth: false });

    const problem = expectProblem(response, 400, 'bad_request');
    expect(problem.errors).toEqual([
      { field, message: 'must not contain the NUL character (U+0000)' },
    ]);
  });

  it.each([
    [
      'client_id',
      'grant_type=client_credentials&client_id=a%00b&client_secret=x',
      401,
      'invalid_client',
    ],
    [
      'code',
      `grant_type=authorization_code&client_id=${DOCS_CLIENT_ID}&code=a%00b&redirect_uri=x&code_verifier=${'x'.repeat(43)}`,
      400,
      'invalid_grant',
    ],
    [
      'refresh_token',
      `grant_type=refresh_token&client_id=${DOCS_CLIENT_ID}&refresh_token=a%00b`,
      400,
      'invalid_grant',
    ],
  ])(
    "in the token form's %s finds nothing: the OAuth error, not a 500",
    async (_field, form, status, error) => {
      const response = await api.request('POST', '/oauth/token', {
        auth: false,
        rawBody: form,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });

      expect([response.status, response.body.error]).toEqual([status, error]);
      // RFC 6749 §5.1, on errors too
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('pragma')).toBe('no-cache');
    },
  );
});
