import { DataSource } from 'typeorm';
import { verifyPassword } from '../src/auth/users/password-hasher';
import { UsersService } from '../src/auth/users/users.service';
import { expectProblem, fieldsOf } from './support/problem';
import { startTestApp, TestApp } from './support/test-app';

/**
 * API.md §2, §3 `/users`: users of the built-in authorization server. Passwords are
 * stored as memory-hard hashes and never returned; emails are unique and lowercased; a
 * customer acts for itself (its customerId is its id).
 */

const PASSWORD = 'correct horse battery staple';

let api: TestApp;
let counter = 0;

beforeAll(async () => {
  api = await startTestApp({ RATE_LIMIT_PER_HOUR: '1000000' });
});

afterAll(async () => {
  await api?.close();
});

const uniqueEmail = (label = 'user') => `${label}.${Date.now()}.${++counter}@example.com`;

interface User {
  id: string;
  email: string;
  name: string | null;
  roles: string[];
  customerId: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

async function createUser(overrides: Record<string, unknown> = {}): Promise<User> {
  const response = await api.post('/api/v1/users', {
    email: uniqueEmail(),
    password: PASSWORD,
    roles: ['operations'],
    ...overrides,
  });
  if (response.status !== 201) {
    throw new Error(`user not created: ${response.status} ${response.text}`);
  }
  return response.body as User;
}

async function storedHash(id: string): Promise<string> {
  const rows: { password_hash: string }[] = await api.app
    .get(DataSource)
    .query('SELECT password_hash FROM users WHERE id = $1', [id]);
  return rows[0].password_hash;
}

describe('creating a user', () => {
  it('answers 201 with Location and the user, never the password', async () => {
    const email = uniqueEmail('ada');

    const response = await api.post('/api/v1/users', {
      email,
      password: PASSWORD,
      roles: ['finance', 'analyst'],
      name: 'Ada Lovelace',
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/v1/users/${response.body.id}`);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email,
      name: 'Ada Lovelace',
      roles: ['finance', 'analyst'],
      customerId: null,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(response.text).not.toContain(PASSWORD);
    expect(response.text).not.toMatch(/password|scrypt/i);
  });

  it('stores a salted scrypt hash, not the password, that verifies the password', async () => {
    const a = await createUser();
    const b = await createUser();

    const hash = await storedHash(a.id);

    expect(hash).not.toContain(PASSWORD);
    expect(hash).toMatch(/^\$scrypt\$ln=16,r=8,p=2\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await storedHash(b.id)).not.toBe(hash); // salted: same password, other hash
    expect(await verifyPassword(PASSWORD, hash)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, hash)).toBe(false);
  });

  it('lowercases the email, and a second user with the same email in any case is 409', async () => {
    const email = uniqueEmail('Grace.Hopper');
    const first = await createUser({ email: email.toUpperCase() });

    const again = await api.post('/api/v1/users', {
      email: email.toLowerCase(),
      password: PASSWORD,
      roles: ['analyst'],
    });

    expect(first.email).toBe(email.toLowerCase());
    expectProblem(again, 409, 'conflict');
  });

  it('makes a customer act for itself: its customerId is its id', async () => {
    const customer = await createUser({ roles: ['customer'] });

    expect(customer.customerId).toBe(customer.id);
  });

  it.each([
    [
      'a customerId (a customer acts for itself)',
      { roles: ['customer'], customerId: 'cus_1' },
      'customerId',
    ],
    ['customer together with a staff role', { roles: ['customer', 'analyst'] }, 'roles'],
    ['no roles', { roles: [] }, 'roles'],
    ['an unknown role', { roles: ['root'] }, 'roles'],
    ['a repeated role', { roles: ['analyst', 'analyst'] }, 'roles'],
    ['a short password', { password: 'short' }, 'password'],
    ['a malformed email', { email: 'not-an-email' }, 'email'],
    ['a password hash instead of a password', { passwordHash: 'x' }, 'passwordHash'],
  ])('refuses %s with 422 naming the field', async (_case, overrides, field) => {
    const response = await api.post('/api/v1/users', {
      email: uniqueEmail(),
      password: PASSWORD,
      roles: ['analyst'],
      ...overrides,
    });

    const problem = expectProblem(response, 422, 'validation_failed');
    expect(fieldsOf(problem).some((f) => f === field || f.startsWith(`${field}[`))).toBe(true);
    expect(response.text).not.toContain(PASSWORD);
  });
});

describe('reading users', () => {
  it('never shows a password or hash in GET one or the list, in v1 or v2', async () => {
    const user = await createUser();
    const hash = await storedHash(user.id);

    const answers = await Promise.all([
      api.get(`/api/v1/users/${user.id}`),
      api.get(`/api/v2/users/${user.id}`),
      api.get('/api/v1/users?limit=100'),
      api.get('/api/v2/users?limit=100'),
    ]);

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers[0].body).toEqual(user);
    expect(answers[1].body).toEqual(user);
    for (const answer of answers) {
      expect(answer.text).not.toContain(PASSWORD);
      expect(answer.text).not.toContain(hash);
      expect(answer.text).not.toMatch(/password|scrypt/i);
    }
  });

  it('filters by role and by email, whatever its case', async () => {
    const user = await createUser({ roles: ['fulfillment'] });

    const byEmail = await api.get(
      `/api/v1/users?email=${encodeURIComponent(user.email.toUpperCase())}`,
    );
    const byRole = await api.get('/api/v1/users?role=fulfillment&limit=100');

    expect(byEmail.body.data).toEqual([user]);
    expect(byRole.body.data.map((u: User) => u.id)).toContain(user.id);
    for (const u of byRole.body.data as User[]) expect(u.roles).toContain('fulfillment');
  });
});

describe('changing a user', () => {
  it('changes email, name and roles, bumps the version, and 409s on a taken email', async () => {
    const user = await createUser();
    const other = await createUser();
    const email = uniqueEmail('New.Address');

    const patched = await api.request('PATCH', `/api/v1/users/${user.id}`, {
      body: { email, name: 'Renamed', roles: ['analyst'] },
    });
    const taken = await api.request('PATCH', `/api/v1/users/${user.id}`, {
      body: { email: other.email },
    });

    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      email: email.toLowerCase(),
      name: 'Renamed',
      roles: ['analyst'],
      version: 2,
    });
    expect(patched.headers.get('etag')).toBe('"2"');
    expectProblem(taken, 409, 'conflict');
  });

  it('replaces the password with a new hash; the old one no longer verifies', async () => {
    const user = await createUser();
    const before = await storedHash(user.id);
    const service = api.app.get(UsersService);

    const patched = await api.request('PATCH', `/api/v1/users/${user.id}`, {
      body: { password: 'an entirely new passphrase' },
    });

    expect(patched.status).toBe(200);
    expect(patched.text).not.toContain('an entirely new passphrase');
    expect(await storedHash(user.id)).not.toBe(before);
    expect(await service.verifyPassword(user.email, PASSWORD)).toBeNull();
    expect((await service.verifyPassword(user.email, 'an entirely new passphrase'))?.id).toBe(
      user.id,
    );
  });

  it('honours If-Match: a stale ETag is 412 and nothing changes', async () => {
    const user = await createUser();

    const stale = await api.request('PATCH', `/api/v1/users/${user.id}`, {
      body: { name: 'Too late' },
      headers: { 'If-Match': '"9"' },
    });

    expectProblem(stale, 412, 'precondition_failed');
    expect((await api.get(`/api/v1/users/${user.id}`)).body.name).toBeNull();
  });
});

describe('deleting a user', () => {
  it('answers 204, then the user is 404 and a second DELETE is 404', async () => {
    const user = await createUser();

    const deleted = await api.request('DELETE', `/api/v1/users/${user.id}`);

    expect(deleted.status).toBe(204);
    expectProblem(await api.get(`/api/v1/users/${user.id}`), 404, 'not_found');
    expectProblem(await api.request('DELETE', `/api/v1/users/${user.id}`), 404, 'not_found');
    expect(await api.app.get(UsersService).verifyPassword(user.email, PASSWORD)).toBeNull();
  });
});

describe('UsersService.verifyPassword (for the login page)', () => {
  it('returns the user for the right email (any case) and password, null otherwise', async () => {
    const user = await createUser();
    const service = api.app.get(UsersService);

    expect((await service.verifyPassword(user.email.toUpperCase(), PASSWORD))?.id).toBe(user.id);
    expect(await service.verifyPassword(user.email, 'wrong password entirely')).toBeNull();
    expect(await service.verifyPassword('nobody@example.com', PASSWORD)).toBeNull();
  });

  it('takes about as long for an unknown email as for a wrong password', async () => {
    const user = await createUser();
    const service = api.app.get(UsersService);
    await service.verifyPassword('warm-up@example.com', PASSWORD);
    const time = async (work: () => Promise<unknown>) => {
      const start = process.hrtime.bigint();
      await work();
      return Number(process.hrtime.bigint() - start) / 1e6;
    };

    // the fastest of a few runs each, so a busy machine's pauses do not decide
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i++) {
      wrong.push(await time(() => service.verifyPassword(user.email, 'wrong password entirely')));
      unknown.push(await time(() => service.verifyPassword('nobody@example.com', PASSWORD)));
    }

    // both run the KDF once; without the decoy an unknown email would answer in ~1 ms
    expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...wrong) * 0.25);
  });
});
