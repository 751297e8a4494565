import { createHash, randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import { createApp } from '../src/app.factory';
import { AppConfig } from '../src/config/app-config';
import { createTestDatabase } from './support/test-database';
import { browse, CookieJar, parseForm } from './support/oauth-browser';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/**
 * API.md §2: the built-in authorization server, driven by a real OAuth client
 * (openid-client) over HTTP: discovery, authorization code + PKCE S256 through the HTML
 * sign-in page, the code exchange, the API called with the access token, refresh, and
 * client credentials; PKCE `plain`, a missing challenge and a wrong verifier refused.
 */

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const PASSWORD = 'correct horse battery staple';

let api: TestApp;
let issuer: URL;

interface SignIn {
  /** the URL the browser ends on: the client's redirect URI with the code */
  callback: URL;
  /** every page the browser went through, with its status */
  trail: { url: string; status: number }[];
  loginPage: string;
}

/**
 * A browser that signs in: follows the authorization URL's redirects, fills the sign-in
 * form with `email` and `password`, and stops at the redirect URI. `reach` maps a URL to
 * where the browser's request goes: a proxy in front of the server, for PUBLIC_URL.
 */
async function signIn(
  authorizationUrl: URL,
  email: string,
  password = PASSWORD,
  reach = (url: string) => url,
  jar = new CookieJar(),
): Promise<SignIn> {
  const trail: SignIn['trail'] = [];
  let loginPage = '';
  let url = authorizationUrl.href;
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const response = await browse(jar, reach(url), form);
    trail.push({ url, status: response.status });
    form = undefined;
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      url = new URL(location, url).href;
      if (url.startsWith(REDIRECT_URI)) return { callback: new URL(url), trail, loginPage };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200 || !/name="password"/.test(html)) {
      throw new Error(`unexpected ${response.status} at ${url}:\n${html}`);
    }
    loginPage = html;
    const parsed = parseForm(html, url);
    parsed.fields.set('email', email);
    parsed.fields.set('password', password);
    url = parsed.action;
    form = parsed.fields;
  }
  throw new Error(`no redirect to the client after ${JSON.stringify(trail)}`);
}

async function createUser(roles: string[]): Promise<{ id: string; email: string }> {
  const email = `user-${randomBytes(4).toString('hex')}@example.com`;
  const response = await api.post('/api/v1/users', { email, password: PASSWORD, roles });
  expect(response.status).toBe(201);
  return { id: response.body.id as string, email };
}

async function createClient(body: Record<string, unknown>) {
  const response = await api.post('/api/v1/oauth-clients', {
    name: 'Test client',
    redirectUris: [REDIRECT_URI],
    public: true,
    scopes: ['products:read', 'orders:read', 'orders:write'],
    ...body,
  });
  expect([response.status, response.text]).toEqual([201, expect.any(String)]);
  return response.body as { id: string; clientId: string; clientSecret?: string };
}

/** openid-client configured from the server's RFC 8414 metadata (plain http on loopback). */
function discover(clientId: string, auth: client.ClientAuth = client.None()) {
  return client.discovery(issuer, clientId, undefined, auth, {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
}

async function pkceAuthorizationUrl(config: client.Configuration, scope: string) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url, verifier, state };
}

const bearer = (token: string) => ({ auth: false, headers: { Authorization: `Bearer ${token}` } });

beforeAll(async () => {
  api = await startTestApp();
  issuer = new URL(api.baseUrl);
});

afterAll(async () => {
  await api?.close();
});

describe('discovery', () => {
  it.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/oauth/.well-known/openid-configuration',
  ])('publishes the server metadata at %s', async (path) => {
    const response = await api.get(path, { auth: false });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      issuer: api.baseUrl,
      authorization_endpoint: `${api.baseUrl}/oauth/auth`,
      token_endpoint: `${api.baseUrl}/oauth/token`,
      jwks_uri: `${api.baseUrl}/oauth/jwks`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    expect(response.body.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
    );
  });

  it.each(['oauth2', 'oidc'] as const)(
    "is discovered from the service's base URL by openid-client, which checks the issuer (%s)",
    async (algorithm) => {
      const config = await client.discovery(
        new URL(api.baseUrl),
        'any-client',
        undefined,
        undefined,
        {
          algorithm,
          execute: [client.allowInsecureRequests],
        },
      );

      expect(config.serverMetadata()).toMatchObject({
        issuer: api.baseUrl,
        token_endpoint: `${api.baseUrl}/oauth/token`,
      });
    },
  );

  it("no longer answers at the former issuer's path-suffixed location", async () => {
    const response = await api.get('/.well-known/oauth-authorization-server/oauth', {
      auth: false,
    });

    expect(response.status).toBe(404);
  });

  it('advertises the permissions operations require as scopes, and no other', async () => {
    const response = await api.get('/.well-known/oauth-authorization-server', { auth: false });

    expect(response.body.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'events:read', 'webhook-endpoints:write']),
    );
    // the events feed has no write operation
    expect(response.body.scopes_supported).not.toContain('events:write');
    // no client is ever registered for it, nor is there a userinfo endpoint
    expect(response.body.scopes_supported).not.toContain('email');
  });

  it('publishes public signing keys only', async () => {
    const response = await api.get('/oauth/jwks', { auth: false });

    expect(response.status).toBe(200);
    expect(response.body.keys.length).toBeGreaterThan(0);
    for (const key of response.body.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key.d).toBeUndefined();
    }
  });
});

describe('authorization code with PKCE', () => {
  let user: { id: string; email: string };
  let registered: { clientId: string };
  let config: client.Configuration;

  beforeAll(async () => {
    user = await createUser(['customer']);
    registered = await createClient({});
    config = await discover(registered.clientId);
  });

  it('signs in through the HTML form and gets an RFC 9068 access token the API accepts', async () => {
    const { url, verifier, state } = await pkceAuthorizationUrl(
      config,
      'products:read orders:read',
    );

    const { callback, loginPage } = await signIn(url, user.email);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });

    expect(loginPage).toMatch(/<input[^>]*name="email"/);
    expect(loginPage).toMatch(/<input[^>]*name="password"[^>]*type="password"/);
    expect(loginPage).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"'\s]+\.(css|js|woff2?)/);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({
      typ: 'at+jwt',
      alg: 'ES256',
    });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      iss: api.baseUrl,
      sub: user.id,
      aud: `${api.baseUrl}/api`,
      client_id: registered.clientId,
      scope: 'products:read orders:read',
      roles: ['customer'],
    });
    for (const claim of ['exp', 'iat', 'jti']) expect(claims[claim]).toBeDefined();

    const products = await api.get('/api/v1/products', bearer(tokens.access_token));
    expect(products.status).toBe(200);
  });

  it('refreshes the access token', async () => {
    const { url, verifier, state } = await pkceAuthorizationUrl(config, 'products:read');
    const { callback } = await signIn(url, user.email);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);

    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ sub: user.id, roles: ['customer'] });
    const products = await api.get('/api/v1/products', bearer(refreshed.access_token));
    expect(products.status).toBe(200);
  });

  it.each(['openid', ''])(
    "gives a request asking for no permission (scope=%j) the client's registered ones that the user's roles allow",
    async (scope) => {
      // registered: products:read, orders:read, orders:write; a finance user reads orders
      // and writes none
      const finance = await createUser(['finance']);
      const { url, verifier, state } = await pkceAuthorizationUrl(config, scope);
      const { callback } = await signIn(url, finance.email);
      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });

      expect(decodeJwt(tokens.access_token)).toMatchObject({
        sub: finance.id,
        scope: 'products:read orders:read',
        roles: ['finance'],
      });
      const orders = await api.get('/api/v1/orders', bearer(tokens.access_token));
      expect(orders.status).toBe(200);
    },
  );

  it('asks a browser whose signed-in user was deleted to sign in again (prompt=none: login_required), not a 500', async () => {
    const gone = await createUser(['customer']);
    const jar = new CookieJar();
    const first = await pkceAuthorizationUrl(config, 'products:read');
    await signIn(first.url, gone.email, PASSWORD, undefined, jar);
    expect((await api.request('DELETE', `/api/v1/users/${gone.id}`)).status).toBe(204);

    const silent = await pkceAuthorizationUrl(config, 'products:read');
    silent.url.searchParams.set('prompt', 'none');
    const refused = await browse(jar, silent.url.href);
    const again = await pkceAuthorizationUrl(config, 'products:read');
    const toSignIn = await browse(jar, again.url.href);

    const error = new URL(refused.headers.get('location') ?? '', silent.url);
    expect(error.href.startsWith(REDIRECT_URI)).toBe(true);
    expect(error.searchParams.get('error')).toBe('login_required');
    const signInPage = new URL(toSignIn.headers.get('location') ?? '', again.url);
    expect(signInPage.pathname).toMatch(/^\/oauth\/interaction\//);
    const page = await browse(jar, signInPage.href);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/name="password"/);
  });

  it('refuses a pushed authorization request holding a NUL character with invalid_request, not a 500 later', async () => {
    const verifier = client.randomPKCECodeVerifier();
    const response = await fetch(new URL('/oauth/request', api.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        response_type: 'code',
        client_id: registered.clientId,
        redirect_uri: REDIRECT_URI,
        scope: 'products:read',
        state: 'a\u0000b',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString(),
    });

    const body = (await response.json()) as Record<string, string>;
    expect([response.status, body.error]).toEqual([400, 'invalid_request']);
    expect(body.error_description).toMatch(/state must not contain the NUL character/);
  });

  it('answers a customer token for a route beyond its scopes with 403', async () => {
    const { url, verifier, state } = await pkceAuthorizationUrl(config, 'products:read');
    const { callback } = await signIn(url, user.email);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });

    const orders = await api.get('/api/v1/orders', bearer(tokens.access_token));

    expect(orders.status).toBe(403);
    expect(orders.body.code).toBe('forbidden');
  });

  it('refuses the code with a wrong code_verifier', async () => {
    const { url, state } = await pkceAuthorizationUrl(config, 'products:read');
    const { callback } = await signIn(url, user.email);

    await expect(
      client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('shows the form again on a wrong password, and issues no code', async () => {
    const { url } = await pkceAuthorizationUrl(config, 'products:read');

    await expect(signIn(url, user.email, 'not the password at all')).rejects.toThrow(
      /^unexpected 401 at [^\n]*\/login:[\s\S]*not right[\s\S]*name="password"/,
    );
  });

  it.each([
    ['no code_challenge', {}],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }],
  ])('refuses an authorization request with %s', async (_, extra: Record<string, string>) => {
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'products:read',
      state: client.randomState(),
      ...(extra.code_challenge_method
        ? { code_challenge: client.randomPKCECodeVerifier(), ...extra }
        : {}),
    });

    const response = await fetch(url, { redirect: 'manual' });

    const location = new URL(response.headers.get('location') ?? '', url);
    expect(location.href.startsWith(REDIRECT_URI)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('refuses a scope the client is not registered for, before any sign-in', async () => {
    // registered: products:read, orders:read, orders:write
    const { url } = await pkceAuthorizationUrl(config, 'products:read users:read');

    const response = await fetch(url, { redirect: 'manual' });

    const location = new URL(response.headers.get('location') ?? '', url);
    expect(location.href.startsWith(REDIRECT_URI)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('code')).toBeNull();
  });
});

describe('client credentials', () => {
  it('issues a confidential client a token for its scopes, which the API accepts', async () => {
    const registered = await createClient({
      public: false,
      redirectUris: [],
      scopes: ['products:read'],
    });
    expect(registered.clientSecret).toEqual(expect.any(String));
    const config = await discover(
      registered.clientId,
      client.ClientSecretBasic(registered.clientSecret),
    );

    const tokens = await client.clientCredentialsGrant(config, { scope: 'products:read' });

    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: registered.clientId,
      client_id: registered.clientId,
      scope: 'products:read',
      aud: `${api.baseUrl}/api`,
    });
    expect((await api.get('/api/v1/products', bearer(tokens.access_token))).status).toBe(200);
    const write = await api.post('/api/v1/products', { sku: 'X' }, bearer(tokens.access_token));
    expect(write.status).toBe(403);
  });

  it("gives a token request without scope the client's registered scopes (RFC 6749 §3.3)", async () => {
    const registered = await createClient({
      public: false,
      redirectUris: [],
      scopes: ['products:read', 'orders:read'],
    });
    const basic = Buffer.from(`${registered.clientId}:${registered.clientSecret}`).toString(
      'base64',
    );

    const response = await fetch(`${api.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${basic}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });

    expect(response.status).toBe(200);
    const tokens = (await response.json()) as { access_token: string; scope?: string };
    expect(tokens.scope).toBe('products:read orders:read');
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      client_id: registered.clientId,
      scope: 'products:read orders:read',
    });
    expect((await api.get('/api/v1/orders', bearer(tokens.access_token))).status).toBe(200);
  });

  it('still serves a client registered with events:write, which grants nothing', async () => {
    const registered = await createClient({
      public: false,
      redirectUris: [],
      scopes: ['events:read', 'events:write'],
    });
    const config = await discover(
      registered.clientId,
      client.ClientSecretBasic(registered.clientSecret),
    );

    const tokens = await client.clientCredentialsGrant(config, {
      scope: 'events:read events:write',
    });

    expect(decodeJwt(tokens.access_token).scope).toBe('events:read');
    expect((await api.get('/api/v1/events', bearer(tokens.access_token))).status).toBe(200);
  });

  it('refuses a scope this server does not know with invalid_scope, instead of a token without it', async () => {
    const registered = await createClient({
      public: false,
      redirectUris: [],
      scopes: ['orders:read'],
    });
    const config = await discover(
      registered.clientId,
      client.ClientSecretBasic(registered.clientSecret),
    );

    // RFC 6749 §5.2: 400 invalid_scope, "unknown" included
    await expect(
      client.clientCredentialsGrant(config, { scope: 'orders:read orders:raed' }),
    ).rejects.toMatchObject({ status: 400, error: 'invalid_scope' });
  });

  it('refuses a wrong client secret', async () => {
    const registered = await createClient({
      public: false,
      redirectUris: [],
      scopes: ['products:read'],
    });
    const config = await discover(registered.clientId, client.ClientSecretBasic('cs_wrong'));

    // RFC 6749 §5.2: 401 with a challenge naming invalid_client
    await expect(
      client.clientCredentialsGrant(config, { scope: 'products:read' }),
    ).rejects.toMatchObject({
      status: 401,
      cause: [
        expect.objectContaining({
          parameters: expect.objectContaining({ error: 'invalid_client' }),
        }),
      ],
    });
  });
});

describe('the sign-in form', () => {
  it('refuses a post that does not come with its interaction cookie (another site, another browser)', async () => {
    const registered = await createClient({});
    const user = await createUser(['analyst']);
    const config = await discover(registered.clientId);
    const { url } = await pkceAuthorizationUrl(config, 'products:read');
    const jar = new CookieJar();
    let page = await browse(jar, url.href);
    const interactionUrl = new URL(page.headers.get('location') as string, url).href;
    page = await browse(jar, interactionUrl);
    const { action, fields } = parseForm(await page.text(), interactionUrl);
    fields.set('email', user.email);
    fields.set('password', PASSWORD);

    const forged = await browse(new CookieJar(), action, fields);

    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();
    expect(await forged.text()).toMatch(/expired or belongs to another browser/);
  });
});

describe('state in the database', () => {
  const PUBLIC_URL = 'http://api.example.test';

  /** The whole app on `target`, listening on a loopback port. */
  async function boot(target: Parameters<typeof createApp>[1]) {
    const config = AppConfig.fromEnvironment({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      BOOTSTRAP_API_KEY: ADMIN_KEY,
      WORKER: 'off',
      PUBLIC_URL,
    });
    const app: NestFastifyApplication = await createApp(config, target);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.getHttpServer().address() as { port: number };
    return { app, base: `http://127.0.0.1:${port}` };
  }

  async function admin(base: string, path: string, body: unknown) {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': ADMIN_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Record<string, string>;
  }

  async function token(base: string, form: Record<string, string>) {
    const response = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    const body = (await response.json()) as Record<string, string>;
    expect([response.status, body.error]).toEqual([200, undefined]);
    return body;
  }

  it('keeps signing keys, clients and refresh tokens across a restart (and so across instances)', async () => {
    const database = await createTestDatabase();
    let running: NestFastifyApplication | undefined;
    try {
      const first = await boot(database.target);
      running = first.app;
      const email = `restart-${randomBytes(4).toString('hex')}@example.com`;
      await admin(first.base, '/api/v1/users', { email, password: PASSWORD, roles: ['analyst'] });
      const { clientId } = await admin(first.base, '/api/v1/oauth-clients', {
        name: 'Restart',
        redirectUris: [REDIRECT_URI],
        public: true,
        scopes: ['products:read'],
      });
      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL(`${first.base}/oauth/auth`);
      authorize.search = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        scope: 'products:read',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      // the authorization server's pages link to PUBLIC_URL, a proxy in front of the app
      const { callback } = await signIn(authorize, email, PASSWORD, (url) =>
        url.replace(PUBLIC_URL, first.base),
      );
      const issued = await token(first.base, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') as string,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: verifier,
      });
      expect(decodeJwt(issued.access_token)).toMatchObject({
        iss: PUBLIC_URL,
        aud: `${PUBLIC_URL}/api`,
      });
      await first.app.close();
      running = undefined;

      const second = await boot(database.target);
      running = second.app;
      const authorization = (value: string) => ({ headers: { Authorization: `Bearer ${value}` } });
      const before = await fetch(
        `${second.base}/api/v1/products`,
        authorization(issued.access_token),
      );
      const refreshed = await token(second.base, {
        grant_type: 'refresh_token',
        refresh_token: issued.refresh_token,
        client_id: clientId,
      });
      const after = await fetch(
        `${second.base}/api/v1/products`,
        authorization(refreshed.access_token),
      );

      expect(before.status).toBe(200);
      expect(after.status).toBe(200);
    } finally {
      await running?.close();
      await database.drop();
    }
  });
});
