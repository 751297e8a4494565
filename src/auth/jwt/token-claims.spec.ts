import { effectivePermissions, rolesFrom, scopesFrom, tokenPrincipal } from './token-claims';

describe('rolesFrom', () => {
  it.each<[string, Record<string, unknown>, string, string[]]>([
    ['a list', { roles: ['finance', 'analyst'] }, 'roles', ['finance', 'analyst']],
    [
      'a nested list (Keycloak)',
      { realm_access: { roles: ['customer', 'uma'] } },
      'realm_access.roles',
      ['customer'],
    ],
    ['a space-separated string', { groups: 'operations admin' }, 'groups', ['admin', 'operations']],
    ['unknown roles only', { roles: ['Admin', 'root'] }, 'roles', []],
    ['a missing claim', {}, 'roles', []],
    ['a claim of another type', { roles: 7 }, 'roles', []],
  ])('reads %s', (_, payload, claim, roles) => {
    expect(rolesFrom(payload, claim)).toEqual(roles);
  });
});

describe('scopesFrom', () => {
  it('reads `scope`, or Entra ID `scp`', () => {
    expect(scopesFrom({ scope: 'openid products:read' })).toEqual(['openid', 'products:read']);
    expect(scopesFrom({ scp: 'products:read' })).toEqual(['products:read']);
    expect(scopesFrom({})).toBeUndefined();
  });
});

describe('effectivePermissions', () => {
  it('narrows the roles by the scopes', () => {
    const permissions = effectivePermissions(['operations'], ['products:read', 'users:read'], true);

    expect([...permissions]).toEqual(['products:read']);
  });

  it('gives a built-in token without a permission scope nothing', () => {
    expect(effectivePermissions(['admin'], ['openid'], true).size).toBe(0);
    expect(effectivePermissions(['admin'], undefined, true).size).toBe(0);
  });

  it('leaves an external token whose scope names no permission to its roles', () => {
    expect(effectivePermissions(['analyst'], ['openid', 'profile'], false)).toEqual(
      effectivePermissions(
        ['analyst'],
        ['products:read', 'orders:read', 'invoices:read', 'shipments:read', 'inventory:read'],
        false,
      ),
    );
  });
});

describe('tokenPrincipal', () => {
  it('takes the widest role, and a customer acts for its sub', () => {
    expect(tokenPrincipal('u1', ['customer', 'analyst'], new Set())).toMatchObject({
      subject: 'u1',
      kind: 'token',
      role: 'analyst',
    });
    expect(tokenPrincipal('u2', ['customer'], new Set())).toMatchObject({
      role: 'customer',
      customerId: 'u2',
    });
  });
});
