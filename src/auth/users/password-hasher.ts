import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';

/**
 * Passwords are stored as scrypt hashes (RFC 7914), Node's built-in memory-hard KDF: no
 * native add-on to build or download. The cost follows the OWASP Password Storage Cheat
 * Sheet (N=2^16, r=8, p=2: 64 MiB and a few hundred milliseconds per hash), which makes
 * every guess against a stolen hash as expensive in memory as in time.
 *
 * The stored string carries its parameters and salt,
 * `$scrypt$ln=16,r=8,p=2$<salt base64>$<hash base64>`, so raising the cost later leaves
 * existing hashes verifiable (needsRehash tells which are behind).
 */
export const SCRYPT_COST = { ln: 16, r: 8, p: 2 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const FORMAT =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface Cost {
  ln: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, { ln, r, p }: Cost): Promise<Buffer> {
  const N = 2 ** ln;
  // scrypt needs 128·N·r bytes; Node refuses more than `maxmem` (32 MiB by default).
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(
      // NIST SP 800-63B: the same password typed on another device hashes the same
      password.normalize('NFKC'),
      salt,
      HASH_BYTES,
      options,
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, SCRYPT_COST);
  const { ln, r, p } = SCRYPT_COST;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(hash)}`;
}

/** Whether `password` is the one `stored` was made from; false for anything unreadable. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [, ln, r, p, salt, hash] = match;
  const expected = Buffer.from(hash, 'base64');
  const cost = { ln: Number(ln), r: Number(r), p: Number(p) };
  if (cost.ln < 10 || cost.ln > 22 || expected.length !== HASH_BYTES) return false;
  const actual = await derive(password, Buffer.from(salt, 'base64'), cost);
  return timingSafeEqual(actual, expected);
}

/** Whether `stored` was made with a lower cost than today's. */
export function needsRehash(stored: string): boolean {
  const match = FORMAT.exec(stored);
  if (!match) return true;
  const [, ln, r, p] = match.map(Number);
  return ln < SCRYPT_COST.ln || r < SCRYPT_COST.r || p < SCRYPT_COST.p;
}

/**
 * A hash of no one's password, verified when a login names an unknown email, so that
 * answering "no" costs the same time whether the account exists or not.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
