import { createHash, randomBytes } from 'node:crypto';
import { browse, CookieJar, parseForm } from './support/oauth-browser';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The sign-in form of the built-in authorization server limits attempts per email and per
 * client IP, in fixed windows counted in Redis: past either limit the form is answered
 * 429 with Retry-After, and the password is not checked. Small limits here.
 *
 * Every caller is fresh (random emails, a random IPv6 /64 sent as X-Forwarded-For from the
 * trusted loopback proxy), so runs on the one Redis never share a counter.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const PER_EMAIL = 3;
const PER_IP = 6;
const WINDOW_S = 900;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';

interface Instance {
  api: TestApp;
  clientId: string;
}

let one: Instance;
let two: Instance;

const freshIp = () =>
  `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;
const freshEmail = () => `sign-in-${randomBytes(4).toString('hex')}@example.com`;

async function createUser(at: Instance): Promise<string> {
  const email = freshEmail();
  const response = await at.api.post('/api/v1/users', {
    email,
    password: PASSWORD,
    roles: ['analyst'],
  });
  expect(response.status).toBe(201);
  return email;
}

async function instance(): Promise<Instance> {
  const api = await startTestApp({
    REDIS_URL,
    SIGN_IN_LIMIT_PER_EMAIL: String(PER_EMAIL),
    SIGN_IN_LIMIT_PER_IP: String(PER_IP),
    SIGN_IN_WINDOW_S: String(WINDOW_S),
  });
  const response = await api.post('/api/v1/oauth-clients', {
    name: 'Sign-in limit',
    redirectUris: [REDIRECT_URI],
    public: true,
    scopes: ['products:read'],
  });
  expect(response.status).toBe(201);
  return { api, clientId: response.body.clientId as string };
}

/** A browser at `ip` on the sign-in page of a new authorization request (PKCE) to `at`. */
async function openSignIn(at: Instance, ip: string) {
  const jar = new CookieJar();
  const headers = { 'X-Forwarded-For': ip };
  const verifier = randomBytes(32).toString('base64url');
  let url = `${at.api.baseUrl}/oauth/auth?${new URLSearchParams({
    client_id: at.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'products:read',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })}`;
  let page = await browse(jar, url, undefined, headers);
  for (let location = page.headers.get('location'); location;) {
    url = new URL(location, url).href;
    page = await browse(jar, url, undefined, headers);
    location = page.headers.get('location');
  }
  expect(page.status).toBe(200);
  const { action, fields } = parseForm(await page.text(), url);

  return {
    submit(email: string, password: string): Promise<Response> {
      const form = new URLSearchParams(fields);
      form.set('email', email);
      form.set('password', password);
      return browse(jar, action, form, headers);
    },
    /** Follows the redirects after a submit: the code the client receives, or null. */
    async codeAfter(response: Response): Promise<string | null> {
      let from = action;
      for (let location = response.headers.get('location'); location;) {
        const next = new URL(location, from);
        if (next.href.startsWith(REDIRECT_URI)) return next.searchParams.get('code');
        from = next.href;
        location = (await browse(jar, from, undefined, headers)).headers.get('location');
      }
      return null;
    },
  };
}

async function expectTooManyAttempts(response: Response): Promise<void> {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(WINDOW_S - 60);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await response.text()).toMatch(/Too many sign-in attempts[\s\S]*name="password"/);
}

beforeAll(async () => {
  // One after the other: passport's process-wide strategy registry authenticates with the
  // app started last, which must have its bootstrap key by then.
  one = await instance();
  two = await instance();
});

afterAll(async () => {
  await Promise.all([one?.api.close(), two?.api.close()]);
});

describe('sign-in attempts per email', () => {
  it('refuses even the right password with 429 and Retry-After once the email has used its attempts, and issues no code', async () => {
    const email = await createUser(one);
    const page = await openSignIn(one, freshIp());
    for (let i = 0; i < PER_EMAIL; i++) {
      expect((await page.submit(email, WRONG)).status).toBe(401);
    }

    const refused = await page.submit(email, PASSWORD);

    expect(await page.codeAfter(refused)).toBeNull();
    await expectTooManyAttempts(refused);
  });

  it('answers an email with a NUL character as a wrong sign-in, not a server error', async () => {
    const email = await createUser(one);
    const page = await openSignIn(one, freshIp());

    const response = await page.submit(`${email}\u0000`, PASSWORD);

    expect(response.status).toBe(401);
    expect(await page.codeAfter(response)).toBeNull();
  });

  it('counts the email whatever its case and spaces, from any IP', async () => {
    const email = await createUser(one);
    const page = await openSignIn(one, freshIp());
    for (let i = 0; i < PER_EMAIL; i++) await page.submit(email, WRONG);

    const elsewhere = await openSignIn(one, freshIp());
    const refused = await elsewhere.submit(`  ${email.toUpperCase()} `, PASSWORD);

    await expectTooManyAttempts(refused);
  });

  it('counts attempts posted at once before checking any password', async () => {
    const email = await createUser(one);
    const page = await openSignIn(one, freshIp());

    const answers = await Promise.all(
      Array.from({ length: PER_EMAIL + 3 }, () => page.submit(email, WRONG)),
    );

    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
  });

  it('lets another email sign in from the same IP meanwhile', async () => {
    const ip = freshIp();
    const locked = await createUser(one);
    const other = await createUser(one);
    const page = await openSignIn(one, ip);
    for (let i = 0; i < PER_EMAIL; i++) await page.submit(locked, WRONG);
    expect((await page.submit(locked, PASSWORD)).status).toBe(429);

    const next = await openSignIn(one, ip);
    const signedIn = await next.submit(other, PASSWORD);

    expect(await next.codeAfter(signedIn)).toEqual(expect.any(String));
  });

  it('shares the count between instances through Redis', async () => {
    const email = await createUser(two);
    const onOne = await openSignIn(one, freshIp());
    for (let i = 0; i < PER_EMAIL; i++) {
      expect((await onOne.submit(email, WRONG)).status).toBe(401);
    }

    const onTwo = await openSignIn(two, freshIp());
    const refused = await onTwo.submit(email, PASSWORD);

    await expectTooManyAttempts(refused);
  });
});

describe('sign-in attempts per IP', () => {
  it('refuses an IP past its limit whatever the email, and only that IP', async () => {
    const email = await createUser(one);
    const ip = freshIp();
    const page = await openSignIn(one, ip);
    const others = [freshEmail(), freshEmail(), freshEmail()];
    for (let i = 0; i < PER_IP; i++) {
      // each email below its own limit
      expect((await page.submit(others[i % others.length], WRONG)).status).toBe(401);
    }

    const refused = await page.submit(email, PASSWORD);
    const elsewhere = await openSignIn(one, freshIp());
    const signedIn = await elsewhere.submit(email, PASSWORD);

    await expectTooManyAttempts(refused);
    expect(await elsewhere.codeAfter(signedIn)).toEqual(expect.any(String));
  });
});
