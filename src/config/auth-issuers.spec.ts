import { AppConfig, ConfigError } from './app-config';
import { parseAuthIssuers } from './auth-issuers';

const entry = (overrides: Record<string, unknown> = {}) => ({
  issuer: 'https://login.example.com/realms/commerce',
  jwksUri: 'https://login.example.com/realms/commerce/protocol/openid-connect/certs',
  audience: 'commerce-api',
  rolesClaim: 'realm_access.roles',
  ...overrides,
});

describe('AUTH_ISSUERS', () => {
  it('is empty when unset', () => {
    expect(parseAuthIssuers(undefined)).toEqual({ issuers: [] });
  });

  it('parses a list of issuers, an audience list included', () => {
    const value = JSON.stringify([
      entry(),
      entry({ issuer: 'https://sts.example.net/t/', audience: ['a', 'b'], rolesClaim: 'roles' }),
    ]);

    expect(parseAuthIssuers(value)).toEqual({
      issuers: [
        entry(),
        entry({ issuer: 'https://sts.example.net/t/', audience: ['a', 'b'], rolesClaim: 'roles' }),
      ],
    });
  });

  it('allows an http JWKS only on loopback', () => {
    const loopback = JSON.stringify([entry({ jwksUri: 'http://127.0.0.1:8080/jwks' })]);
    const remote = JSON.stringify([entry({ jwksUri: 'http://idp.example.com/jwks' })]);

    expect(parseAuthIssuers(loopback)).toHaveProperty('issuers');
    expect(parseAuthIssuers(remote)).toEqual({
      problems: ['AUTH_ISSUERS[0].jwksUri: must be an https URL (http only on loopback)'],
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['not JSON', 'nope', /^AUTH_ISSUERS: must be a JSON list$/],
    ['an object', { issuer: 'x' }, /^AUTH_ISSUERS: must be a JSON list$/],
    ['an entry that is not an object', ['x'], /^AUTH_ISSUERS\[0\]: must be an object/],
    ['a missing issuer', [entry({ issuer: undefined })], /^AUTH_ISSUERS\[0\]\.issuer: /],
    ['a missing JWKS URI', [entry({ jwksUri: undefined })], /^AUTH_ISSUERS\[0\]\.jwksUri: /],
    ['an empty audience', [entry({ audience: '' })], /^AUTH_ISSUERS\[0\]\.audience: /],
    ['an empty audience list', [entry({ audience: [] })], /^AUTH_ISSUERS\[0\]\.audience: /],
    [
      'a missing roles claim',
      [entry({ rolesClaim: undefined })],
      /^AUTH_ISSUERS\[0\]\.rolesClaim: /,
    ],
    [
      'a malformed roles claim',
      [entry({ rolesClaim: 'a..b' })],
      /^AUTH_ISSUERS\[0\]\.rolesClaim: /,
    ],
    [
      'an unknown field',
      [entry({ algorithms: ['RS256'] })],
      /^AUTH_ISSUERS\[0\]\.algorithms: is not a known field/,
    ],
    ['a duplicate issuer', [entry(), entry()], /^AUTH_ISSUERS\[1\]\.issuer: .* is listed twice$/],
  ])('names the entry and field of %s', (_, value, message) => {
    const result = parseAuthIssuers(typeof value === 'string' ? value : JSON.stringify(value));

    expect(result).toEqual({ problems: [expect.stringMatching(message)] });
  });

  it('stops the process at boot with every problem named', () => {
    const value = JSON.stringify([
      entry({ jwksUri: 'ftp://x' }),
      entry({ issuer: 'x', rolesClaim: '' }),
    ]);

    expect(() => AppConfig.fromEnvironment({ AUTH_ISSUERS: value })).toThrow(ConfigError);
    expect(() => AppConfig.fromEnvironment({ AUTH_ISSUERS: value })).toThrow(
      /AUTH_ISSUERS\[0\]\.jwksUri[\s\S]*AUTH_ISSUERS\[1\]\.issuer[\s\S]*AUTH_ISSUERS\[1\]\.rolesClaim/,
    );
    expect(
      AppConfig.fromEnvironment({ AUTH_ISSUERS: JSON.stringify([entry()]) }).authIssuers,
    ).toEqual([entry()]);
  });
});
