import { createHmac } from 'node:crypto';
import { Problem } from '../problems/problem';
import { CursorCodec, CursorPayload } from './cursor-codec';

const SECRET = Buffer.from('cursor-secret-for-unit-tests-0123456789', 'utf8');
const codec = new CursorCodec(SECRET);

const payload: CursorPayload = {
  c: 'products',
  s: '-createdAt,-id',
  d: 'a',
  k: ['2026-11-21T10:00:00.000Z', '0193c1c4-6a2e-7c61-9a8e-5d1f0b7c2a11'],
};

/** Runs `decode` and returns the Problem it throws (failing when it throws none). */
function decodeError(cursor: string, by: CursorCodec = codec): Problem {
  try {
    by.decode(cursor);
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    return error as Problem;
  }
  throw new Error(`cursor was accepted: ${cursor}`);
}

function expectRefused(cursor: string, by: CursorCodec = codec) {
  const problem = decodeError(cursor, by);
  expect(problem.code).toBe('bad_request');
  expect(problem.status).toBe(400);
  // the field message reads after the field's name, as every other field message does
  expect(problem.errors).toEqual([
    { field: 'cursor', message: 'is not valid for this list; start again without it' },
  ]);
  expect(problem.detail).toBe('The cursor is not valid for this list; start again without it.');
}

/** Flips one character of `text` at `index` to another base64url character. */
const flip = (text: string, index: number) =>
  text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);

describe('CursorCodec', () => {
  it('decodes what it encoded', () => {
    const cursor = codec.encode(payload);

    expect(codec.decode(cursor)).toEqual(payload);
  });

  it.each<CursorPayload>([
    { c: 'inventory', s: 'quantityOnHand,sku', d: 'b', k: [42, 'SKU-1'] },
    { c: 'products', s: 'name,id', d: 'a', k: ['Ünïcødé “name” ✓', 'x'] },
    { c: 'orders', s: 'id', d: 'b', k: [] },
  ])('round-trips %p', (value) => {
    expect(codec.decode(codec.encode(value))).toEqual(value);
  });

  it('makes opaque, URL-safe tokens of body "." MAC', () => {
    const cursor = codec.encode(payload);

    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('createdAt');
  });

  it('gives the same cursor for the same payload (deterministic)', () => {
    expect(codec.encode(payload)).toBe(codec.encode({ ...payload }));
  });

  it('refuses a payload that was changed and re-encoded without the secret', () => {
    const [, mac] = codec.encode(payload).split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, c: 'orders' })).toString('base64url');

    expectRefused(`${forged}.${mac}`);
  });

  it('refuses a payload with one character flipped', () => {
    const [body, mac] = codec.encode(payload).split('.');

    expectRefused(`${flip(body, 5)}.${mac}`);
  });

  it('refuses a MAC with one character flipped', () => {
    const [body, mac] = codec.encode(payload).split('.');

    expectRefused(`${body}.${flip(mac, 0)}`);
  });

  it('refuses a truncated or extended MAC', () => {
    const [body, mac] = codec.encode(payload).split('.');

    expectRefused(`${body}.${mac.slice(0, -2)}`);
    expectRefused(`${body}.${mac}AA`);
  });

  it('refuses a cursor made with another secret', () => {
    const other = new CursorCodec(Buffer.from('another-secret', 'utf8'));

    expectRefused(other.encode(payload));
    expectRefused(codec.encode(payload), other);
  });

  it.each([
    ['a direction other than a/b', { c: 'products', s: 'id', d: 'x', k: [] }],
    ['keys that are not a list', { c: 'products', s: 'id', d: 'a', k: 'abc' }],
    ['no keys', { c: 'products', s: 'id', d: 'a' }],
    ['a JSON array', ['products', 'id', 'a', []]],
    ['JSON null', null],
  ])('refuses a correctly signed body with %s', (_situation, value) => {
    const signed = codec.encode(value as unknown as CursorPayload);

    expectRefused(signed);
  });

  it('refuses a correctly signed body that is not JSON', () => {
    const body = Buffer.from('{not json').toString('base64url');
    const mac = createHmac('sha256', SECRET).update(body).digest().subarray(0, 16);

    expectRefused(`${body}.${mac.toString('base64url')}`);
  });

  it.each([
    ['an empty string', ''],
    ['a lone dot', '.'],
    ['no MAC', 'eyJjIjoicHJvZHVjdHMifQ'],
    ['an empty MAC', 'eyJjIjoicHJvZHVjdHMifQ.'],
    ['an empty body', '.AAAAAAAAAAAAAAAAAAAAAA'],
    ['three parts', 'a.b.c'],
    ['garbage', 'not a cursor at all'],
    ['base64 of garbage', `${Buffer.from('garbage').toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`],
  ])('refuses %s with 400 bad_request on `cursor`', (_situation, cursor) => {
    expectRefused(cursor);
  });
});
