import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';
import { DataSource } from 'typeorm';
import { createOrder, customerIdFor, stockedProduct } from './support/order-factories';
import { expectProblem } from './support/problem';
import { ApiResponse, startTestApp, TestApp } from './support/test-app';

/**
 * API.md §2: `Authorization: Bearer <jwt>` on every /api route. Tokens of the built-in
 * issuer (verified against its own keys, RFC 9068 profile) and of an external issuer
 * configured in AUTH_ISSUERS, whose JWKS a server started here publishes on 127.0.0.1.
 * A token that is not valid is 401 `invalid_token`; valid without the permission, 403.
 */

const EXTERNAL_ISSUER = 'https://idp.example.test/realms/commerce';
const EXTERNAL_AUDIENCE = 'commerce-api';

let api: TestApp;
let jwksServer: Server;
let externalKey: CryptoKey;
let externalKid: string;
/** A key the external issuer does not publish, under the same `kid`. */
let forgeryKey: CryptoKey;
let builtIn: { key: CryptoKey; kid: string; issuer: string; audience: string };

/** JWKS addresses of issuers whose keys cannot be had, and what they answer. */
const FAILING_JWKS: Record<string, { status: number; body: string }> = {
  '/jwks-500': { status: 500, body: '{"error":"down"}' },
  '/jwks-not-json': { status: 200, body: '<html>maintenance</html>' },
  '/jwks-no-keys': { status: 200, body: '{"issuer":"x"}' },
};
/** How often each failing JWKS was asked. */
const jwksFetches = new Map<string, number>();

const now = () => Math.floor(Date.now() / 1000);

async function externalToken(
  claims: JWTPayload,
  options: { key?: CryptoKey; header?: Record<string, unknown> } = {},
): Promise<string> {
  return new SignJWT({
    iss: EXTERNAL_ISSUER,
    aud: EXTERNAL_AUDIENCE,
    sub: 'employee-42',
    iat: now(),
    exp: now() + 300,
    realm_access: { roles: ['analyst'] },
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: externalKid, typ: 'JWT', ...options.header })
    .sign(options.key ?? externalKey);
}

/** A token signed with the built-in server's own key, shaped as its access tokens are. */
async function builtInToken(
  claims: JWTPayload,
  header: Record<string, unknown> = { typ: 'at+jwt' },
): Promise<string> {
  return new SignJWT({
    iss: builtIn.issuer,
    aud: builtIn.audience,
    sub: 'some-user',
    client_id: 'cli_test',
    jti: `jti-${Math.random()}`,
    iat: now(),
    exp: now() + 300,
    scope: 'products:read',
    roles: ['analyst'],
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid: builtIn.kid, ...header })
    .sign(builtIn.key);
}

const withBearer = (token: string) => ({
  auth: false,
  headers: { Authorization: `Bearer ${token}` },
});

function expectInvalidToken(response: ApiResponse): void {
  expectProblem(response, 401, 'invalid_token');
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer realm="commerce-api", error="invalid_token"/);
  expect(challenge).toMatch(/ApiKey/);
}

beforeAll(async () => {
  const external = await generateKeyPair('RS256');
  externalKey = external.privateKey;
  externalKid = 'external-key-1';
  forgeryKey = (await generateKeyPair('RS256')).privateKey;
  const publicJwk: JWK = {
    ...(await exportJWK(external.publicKey)),
    kid: externalKid,
    alg: 'RS256',
    use: 'sig',
  };
  jwksServer = createServer((request, response) => {
    const failing = FAILING_JWKS[request.url ?? ''];
    if (failing) {
      jwksFetches.set(request.url as string, (jwksFetches.get(request.url as string) ?? 0) + 1);
      response.writeHead(failing.status, { 'Content-Type': 'application/json' });
      response.end(failing.body);
      return;
    }
    if (request.url !== '/jwks') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const { port } = jwksServer.address() as AddressInfo;

  api = await startTestApp({
    RATE_LIMIT_PER_HOUR: '1000000',
    AUTH_ISSUERS: JSON.stringify([
      {
        issuer: EXTERNAL_ISSUER,
        jwksUri: `http://127.0.0.1:${port}/jwks`,
        audience: EXTERNAL_AUDIENCE,
        rolesClaim: 'realm_access.roles',
      },
      ...Object.keys(FAILING_JWKS).map((path) => ({
        issuer: `https://failing.example.test${path}`,
        jwksUri: `http://127.0.0.1:${port}${path}`,
        audience: EXTERNAL_AUDIENCE,
        rolesClaim: 'realm_access.roles',
      })),
    ]),
  });

  const rows: { private_jwk: JWK & { kid: string } }[] = await api.app
    .get(DataSource)
    .query(`SELECT private_jwk FROM oauth_signing_keys WHERE retired_at IS NULL`);
  expect(rows).toHaveLength(1);
  builtIn = {
    key: (await importJWK(rows[0].private_jwk, 'ES256')) as CryptoKey,
    kid: rows[0].private_jwk.kid,
    issuer: api.baseUrl,
    audience: `${api.baseUrl}/api`,
  };
});

afterAll(async () => {
  await api?.close();
  await new Promise((resolve) => jwksServer?.close(resolve));
});

describe('an external issuer from AUTH_ISSUERS', () => {
  it('is accepted with the roles its configured claim carries', async () => {
    const token = await externalToken({ realm_access: { roles: ['analyst', 'offline'] } });

    const read = await api.get('/api/v1/products', withBearer(token));
    const write = await api.post('/api/v1/products', { sku: 'A' }, withBearer(token));

    expect(read.status).toBe(200);
    expectProblem(write, 403, 'forbidden');
  });

  it('answers a valid token with no role this API knows with 403', async () => {
    const token = await externalToken({ realm_access: { roles: ['guest', 'offline'] } });

    expectProblem(await api.get('/api/v1/products', withBearer(token)), 403, 'forbidden');
  });

  it('narrows the roles by the scopes: a token without the route permission in scope is 403', async () => {
    const token = await externalToken({
      realm_access: { roles: ['operations'] },
      scope: 'openid products:read',
    });

    const read = await api.get('/api/v1/products', withBearer(token));
    const write = await api.post('/api/v1/products', { sku: 'A' }, withBearer(token));
    const orders = await api.get('/api/v1/orders', withBearer(token));

    expect(read.status).toBe(200);
    expectProblem(write, 403, 'forbidden');
    expect(write.headers.get('www-authenticate')).toMatch(
      /error="insufficient_scope", scope="products:write"/,
    );
    expectProblem(orders, 403, 'forbidden');
  });

  it('lets a customer token see only the orders of its `sub`', async () => {
    const product = await stockedProduct(api, 10);
    const own = await createOrder(api, [{ sku: product.sku, quantity: 1 }], {
      customerId: 'customer-sub-7',
    });
    const other = await createOrder(api, [{ sku: product.sku, quantity: 1 }], {
      customerId: customerIdFor(),
    });
    const token = await externalToken({
      sub: 'customer-sub-7',
      realm_access: { roles: ['customer'] },
    });

    const list = await api.get('/api/v1/orders', withBearer(token));
    const foreign = await api.get(`/api/v1/orders/${other.id}`, withBearer(token));

    expect(list.status).toBe(200);
    expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([own.id]);
    expectProblem(foreign, 404, 'not_found');
  });

  it.each<[string, () => Promise<string>]>([
    ['a forged signature', () => externalToken({}, { key: forgeryKey })],
    ['an expired token', () => externalToken({ iat: now() - 600, exp: now() - 60 })],
    ['a token not yet valid (nbf)', () => externalToken({ nbf: now() + 600 })],
    ['a wrong audience', () => externalToken({ aud: 'another-api' })],
    ['an unknown issuer', () => externalToken({ iss: 'https://evil.example.test' })],
    ['an unknown kid', () => externalToken({}, { header: { kid: 'unpublished' } })],
    ['a token without exp', () => externalToken({ exp: undefined })],
  ])('answers %s with 401 invalid_token', async (_, token) => {
    expectInvalidToken(await api.get('/api/v1/products', withBearer(await token())));
  });
});

describe("the token's sub", () => {
  it.each<[string, unknown, string[]]>([
    ['empty', '', ['admin']],
    ['a number', 42, ['admin']],
    ['holding U+0000', 'x\u0000', ['customer']],
    ['of 201 characters', 's'.repeat(201), ['admin']],
    ['of 65 characters for a customer, whose customerId it is', 'c'.repeat(65), ['customer']],
  ])(
    'refuses a well-signed token whose sub is %s with 401 invalid_token, not a 500 when stored',
    async (_, sub, roles) => {
      const token = await externalToken({ sub: sub as string, realm_access: { roles } });

      const response = await api.get('/api/v1/orders', withBearer(token));

      expectInvalidToken(response);
      expect(response.body.detail).toMatch(/^The token's sub claim must /);
    },
  );

  it.each([
    ['staff', 's'.repeat(200), ['admin']],
    ['a customer', 'c'.repeat(64), ['customer']],
  ])('accepts the longest sub that fits, for %s', async (_, sub, roles) => {
    const token = await externalToken({ sub, realm_access: { roles } });

    expect((await api.get('/api/v1/orders', withBearer(token))).status).toBe(200);
  });
});

describe('an external issuer whose JWKS cannot be had', () => {
  it.each(Object.keys(FAILING_JWKS))(
    'is asked once for tokens that need its keys (%s), and each is told so at once',
    async (path) => {
      const token = await externalToken(
        { iss: `https://failing.example.test${path}` },
        { header: { kid: 'any' } },
      );

      const answers = [];
      for (let i = 0; i < 4; i++) {
        answers.push(await api.get('/api/v1/products', withBearer(token)));
      }

      for (const answer of answers) {
        expectInvalidToken(answer);
        expect(answer.body.detail).toBe("The token's issuer keys could not be fetched.");
      }
      expect(jwksFetches.get(path)).toBe(1);
    },
  );
});

describe('the built-in issuer', () => {
  it('accepts its RFC 9068 access tokens', async () => {
    const token = await builtInToken({});

    expect((await api.get('/api/v1/products', withBearer(token))).status).toBe(200);
  });

  it('accepts the access tokens earlier versions signed as the issuer <origin>/oauth', async () => {
    const token = await builtInToken({ iss: `${api.baseUrl}/oauth` });

    expect((await api.get('/api/v1/products', withBearer(token))).status).toBe(200);
  });

  it('refuses its own signature under an issuer it never was', async () => {
    const token = await builtInToken({ iss: `${api.baseUrl}/elsewhere` });

    expectInvalidToken(await api.get('/api/v1/products', withBearer(token)));
  });

  it('narrows strictly: a token without a permission scope can do nothing', async () => {
    const token = await builtInToken({ scope: 'openid', roles: ['admin'] });

    const response = await api.get('/api/v1/products', withBearer(token));

    expectProblem(response, 403, 'forbidden');
    expect(response.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
  });

  it.each<[string, () => Promise<string>]>([
    ['a token without typ at+jwt', () => builtInToken({}, { typ: 'JWT' })],
    ['an expired token', () => builtInToken({ iat: now() - 1200, exp: now() - 600 })],
    ['a wrong audience', () => builtInToken({ aud: 'https://elsewhere.example/api' })],
    ['a token without client_id', () => builtInToken({ client_id: undefined })],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await builtInToken({})).split('.');
        const payload = Buffer.from(
          JSON.stringify({
            iss: builtIn.issuer,
            aud: builtIn.audience,
            sub: 'x',
            roles: ['admin'],
          }),
        ).toString('base64url');
        return `${header}.${payload}.${signature}`;
      },
    ],
  ])('answers %s with 401 invalid_token', async (_, token) => {
    expectInvalidToken(await api.get('/api/v1/products', withBearer(await token())));
  });

  it("counts a request refused before authentication against the token's subject", async () => {
    const token = await builtInToken({ sub: `user-${Math.random()}` });
    const remaining = (response: ApiResponse) =>
      Number(/r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1]);

    const served = await api.get('/api/v1/products', withBearer(token));
    const unknownRoute = await api.get('/api/v1/no-such-collection', withBearer(token));

    expect(served.status).toBe(200);
    expectProblem(unknownRoute, 404, 'not_found');
    // the subject's own budget: one fewer than after its first request
    expect(remaining(unknownRoute)).toBe(remaining(served) - 1);
  });
});

describe('any bearer token', () => {
  it.each([
    ['not a JWT', 'Bearer not-a-jwt'],
    ['an unsecured JWT (alg none)', `Bearer ${unsecuredJwt()}`],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('answers %s with 401 invalid_token', async (_, authorization) => {
    const response = await api.get('/api/v1/products', {
      auth: false,
      headers: { Authorization: authorization },
    });

    expectInvalidToken(response);
  });

  it('answers an HMAC-signed token naming a trusted issuer with 401 (no shared secrets)', async () => {
    const token = await new SignJWT({
      iss: EXTERNAL_ISSUER,
      aud: EXTERNAL_AUDIENCE,
      sub: 'x',
      exp: now() + 60,
      realm_access: { roles: ['admin'] },
    })
      .setProtectedHeader({ alg: 'HS256', kid: externalKid })
      .sign(new TextEncoder().encode('a-secret-anyone-could-guess-000000'));

    expectInvalidToken(await api.get('/api/v1/products', withBearer(token)));
  });
});

function unsecuredJwt(): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode({
    iss: EXTERNAL_ISSUER,
    aud: EXTERNAL_AUDIENCE,
    sub: 'x',
    exp: now() + 60,
    realm_access: { roles: ['admin'] },
  })}.`;
}
