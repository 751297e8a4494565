import { canonicalJson, requestHash } from './request-hash';

describe('requestHash', () => {
  it('is the same for bodies that differ only in member order, at any depth', () => {
    const a = { lines: [{ sku: 'A', quantity: 1 }], shippingAddress: { city: 'X', name: 'N' } };
    const b = { shippingAddress: { name: 'N', city: 'X' }, lines: [{ quantity: 1, sku: 'A' }] };

    expect(requestHash('POST', '/api/v1/orders', a)).toBe(requestHash('POST', '/api/v1/orders', b));
  });

  it.each([
    ['another value', { a: 1 }, { a: 2 }],
    ['another array order', { a: [1, 2] }, { a: [2, 1] }],
    ['a missing member', { a: 1, b: null }, { a: 1 }],
  ])('differs for %s', (_case, a, b) => {
    expect(requestHash('POST', '/p', a)).not.toBe(requestHash('POST', '/p', b));
  });

  it('differs by path and by method', () => {
    const body = { a: 1 };

    expect(requestHash('POST', '/api/v1/orders', body)).not.toBe(
      requestHash('POST', '/api/v2/orders', body),
    );
    expect(requestHash('POST', '/p', body)).not.toBe(requestHash('PUT', '/p', body));
  });

  it('takes no body and {} as one request, but not null or []', () => {
    const none = requestHash('POST', '/p', undefined);

    expect(requestHash('POST', '/p', {})).toBe(none);
    expect(requestHash('POST', '/p', null)).not.toBe(requestHash('POST', '/p', []));
    expect(requestHash('POST', '/p', [])).not.toBe(none);
  });

  it('gives a body the same text and digest as every release before (stored keys hold it)', () => {
    const body = {
      b: 1,
      '10': [{ y: null, x: '\u00e9\u2028' }],
      a: { d: 2, c: [{ f: 1, e: true }] },
      '9': 'z',
    };

    expect(canonicalJson(body)).toBe(
      '{"9":"z","10":[{"x":"\u00e9\u2028","y":null}],"a":{"c":[{"e":true,"f":1}],"d":2},"b":1}',
    );
    expect(requestHash('POST', '/api/v1/orders', body)).toBe(
      'c7a3f9d54e5cf268ee7523a28937cc2ffa36fc2a7937737d5b7039ceac16d6f8',
    );
  });

  it('keeps a member named __proto__ as a member', () => {
    const body = JSON.parse('{"b":1,"__proto__":{"x":1}}') as unknown;

    expect(canonicalJson(body)).toBe('{"__proto__":{"x":1},"b":1}');
  });

  it('treats a missing body as null', () => {
    expect(canonicalJson(undefined)).toBe('null');
  });
});
