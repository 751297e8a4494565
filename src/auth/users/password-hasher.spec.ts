import { hashPassword, needsRehash, SCRYPT_COST, verifyPassword } from './password-hasher';

describe('password hashing (scrypt)', () => {
  it('stores a salted scrypt hash with its cost, never the password', async () => {
    const stored = await hashPassword('correct horse battery staple');

    expect(stored).toMatch(/^\$scrypt\$ln=16,r=8,p=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(stored).not.toContain('correct horse');
    expect(await hashPassword('correct horse battery staple')).not.toBe(stored);
  });

  it('verifies the right password and refuses any other', async () => {
    const stored = await hashPassword('correct horse battery staple');

    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('treats canonically equivalent spellings as the same password (NFKC)', async () => {
    const stored = await hashPassword('caf\u00e9-password-1');

    expect(await verifyPassword('cafe\u0301-password-1', stored)).toBe(true);
  });

  it('refuses stored values it cannot read instead of throwing', async () => {
    for (const stored of ['', 'plain', '$scrypt$ln=99,r=8,p=1$AAAA$BBBB', '$argon2id$v=19$x']) {
      expect(await verifyPassword('whatever', stored)).toBe(false);
    }
  });

  it('tells hashes made with a lower cost apart', async () => {
    expect(needsRehash(await hashPassword('a password of some length'))).toBe(false);
    const cheaper = `$scrypt$ln=${SCRYPT_COST.ln - 2},r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$${'A'.repeat(43)}`;
    expect(needsRehash(cheaper)).toBe(true);
    expect(needsRehash('garbage')).toBe(true);
  });
});
