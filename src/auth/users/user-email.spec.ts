import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { isEmail } from 'class-validator';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from './user-email';

/**
 * EMAIL_PATTERN is what the documents show and what the DTOs enforce together with
 * IsEmail: every address it takes must also pass JSON Schema's `format: email` (as a
 * client validating the answers checks it) and IsEmail, else the server would store an
 * email its own response schema refuses, or the document would promise one it refuses.
 */

const ajv = new Ajv2020({ strict: true });
addFormats(ajv);
const formatEmail = ajv.compile({ type: 'string', format: 'email' });
const documented = ajv.compile({
  type: 'string',
  format: 'email',
  maxLength: EMAIL_MAX_LENGTH,
  pattern: EMAIL_PATTERN.source,
});
const isEmailAsConfigured = (value: string) =>
  isEmail(value, {
    allow_display_name: false,
    allow_utf8_local_part: false,
    allow_ip_domain: false,
    allow_underscores: false,
    require_tld: true,
  });

/** A small deterministic generator (mulberry32), so a failure can be reproduced. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function candidates(count: number): string[] {
  const next = random(20261125);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const label = (max: number) =>
    Array.from({ length: 1 + Math.floor(next() * max) }, () => pick([...'aZ09-_xn'])).join('');
  const noise = [...'aZ09.-_@" !#~+\té\u212a[]:'];
  const tlds = ['com', 'CO', 'c0m', 'x', 'xn--p1ai', 'XN--P1AI', 'xnab', 'xn-', '123', ''];
  return Array.from({ length: count }, () => {
    if (next() < 0.2) {
      return Array.from({ length: Math.floor(next() * 20) }, () => pick(noise)).join('');
    }
    const long = next() < 0.2;
    const local = Array.from({ length: 1 + Math.floor(next() * 4) }, () => label(long ? 30 : 5));
    const domain = Array.from({ length: 1 + Math.floor(next() * 4) }, () => label(long ? 70 : 6));
    const tld = pick(tlds);
    return `${local.join(next() < 0.9 ? '.' : '..')}@${domain.join('.')}${tld ? `.${tld}` : ''}`;
  });
}

describe('EMAIL_PATTERN', () => {
  it('takes only what format: email and IsEmail take, and no more than the length', () => {
    const disagreements = candidates(50_000).filter((value) => {
      const taken = EMAIL_PATTERN.test(value) && value.length <= EMAIL_MAX_LENGTH;
      const lower = value.replace(/[A-Z]+/g, (s) => s.toLowerCase());
      return taken && !(formatEmail(value) && isEmailAsConfigured(lower) && documented(value));
    });

    expect(disagreements).toEqual([]);
  });

  it('refuses no ASCII address that both format: email and IsEmail take', () => {
    const refused = candidates(50_000).filter((value) => {
      const lower = value.replace(/[A-Z]+/g, (s) => s.toLowerCase());
      return formatEmail(value) && isEmailAsConfigured(lower) && !EMAIL_PATTERN.test(value);
    });

    expect(refused).toEqual([]);
  });

  it.each([
    ['ada@example.com', true],
    ['Ada.Lovelace+Orders@Mail.Example.COM', true],
    ["!#$%&'*+/=?^_`{|}~-@example.com", true],
    [`${'a'.repeat(64)}@example.com`, true],
    ['someone@xn--80ak6aa92e.xn--p1ai', true],
    ['  someone@example.com  ', false],
    ['someone@example.com\n', false],
    ['"john doe"@example.com', false],
    ['"john"@example.com', false],
    ['jösé@example.com', false],
    ['\u212aate@example.com', false],
    ['someone@exämple.com', false],
    [`${'a'.repeat(65)}@example.com`, false],
    ['someone@example.c0m', false],
    ['someone@example.c', false],
    ['someone@127.0.0.1', false],
    ['someone@[127.0.0.1]', false],
    ['someone@localhost', false],
    ['some..one@example.com', false],
    ['someone@ex_ample.com', false],
    ['someone@example.com.', false],
  ])('%j: %s', (value, expected) => {
    expect(EMAIL_PATTERN.test(value)).toBe(expected);
  });

  it('answers fast on a long value that is not an address', () => {
    const start = process.hrtime.bigint();
    EMAIL_PATTERN.test(`a@${'a'.repeat(1_000_000)}`);
    EMAIL_PATTERN.test(`a@${'a.'.repeat(500_000)}-`);
    EMAIL_PATTERN.test(`${'a.'.repeat(500_000)}@`);
    expect(Number(process.hrtime.bigint() - start) / 1e6).toBeLessThan(500);
  });
});
