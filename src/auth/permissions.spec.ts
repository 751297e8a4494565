import { isRole, Permission, Resource, RESOURCES, Role, roleGrants, ROLES } from './permissions';

/**
 * The role table of API.md §2, copied literally. A cell that says `read` grants
 * `<resource>:read`; `write` or `create` grants `<resource>:write` (a customer's `own:`
 * rights are still the permission; ownership is enforced on the rows); `—` grants nothing.
 */
const API_MD_ROLE_TABLE = `
| role | products, inventory | orders | invoices | shipments | admin resources |
|---|---|---|---|---|---|
| \`admin\` | read, write | read, write | read, write | read, write | read, write |
| \`operations\` | read, write | read, write | read, write | read, write | — |
| \`finance\` | read | read | read, write | read | — |
| \`fulfillment\` | read, write | read | — | read, write | — |
| \`analyst\` | read | read | read | read | — |
| \`customer\` | read | own: read, create | own: read | own: read | — |
`;

/** "Admin resources: `api-keys`, `users`, `oauth-clients`, `webhook-endpoints`, `events`." */
const COLUMNS: Resource[][] = [
  ['products', 'inventory'],
  ['orders'],
  ['invoices'],
  ['shipments'],
  ['api-keys', 'users', 'oauth-clients', 'webhook-endpoints', 'events'],
];

type Access = { read: boolean; write: boolean };

function parseTable(markdown: string): Map<string, Record<string, Access>> {
  const rows = markdown
    .trim()
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const table = new Map<string, Record<string, Access>>();
  for (const [roleCell, ...cells] of rows) {
    if (cells.length !== COLUMNS.length) throw new Error(`malformed row: ${roleCell}`);
    const grid: Record<string, Access> = {};
    cells.forEach((cell, column) => {
      const access = { read: /\bread\b/.test(cell), write: /\b(write|create)\b/.test(cell) };
      if ((cell === '—') !== (!access.read && !access.write)) {
        throw new Error(`unreadable cell: ${cell}`);
      }
      for (const resource of COLUMNS[column]) grid[resource] = access;
    });
    table.set(roleCell.replace(/`/g, ''), grid);
  }
  return table;
}

const expected = parseTable(API_MD_ROLE_TABLE);

function granted(role: Role): Record<string, Access> {
  return Object.fromEntries(
    RESOURCES.map((resource) => [
      resource,
      {
        read: roleGrants(role, `${resource}:read` as Permission),
        write: roleGrants(role, `${resource}:write` as Permission),
      },
    ]),
  );
}

describe('the role table of API.md §2', () => {
  it('covers exactly the six roles and ten resources the code knows', () => {
    expect([...expected.keys()].sort()).toEqual([...ROLES].sort());
    for (const grid of expected.values()) {
      expect(Object.keys(grid).sort()).toEqual([...RESOURCES].sort());
    }
    expect(ROLES.length * RESOURCES.length * 2).toBe(120);
  });

  it.each([...ROLES])('grants %s exactly its row: every resource, read and write', (role) => {
    expect(granted(role)).toEqual(expected.get(role));
  });

  it('lets a customer read the catalog and its own orders, invoices and shipments, and create orders only', () => {
    const can = (permission: Permission) => roleGrants('customer', permission);

    expect(can('products:read') && can('inventory:read')).toBe(true);
    expect(can('orders:read') && can('invoices:read') && can('shipments:read')).toBe(true);
    expect(can('orders:write')).toBe(true);
    expect(can('products:write') || can('inventory:write')).toBe(false);
    expect(can('invoices:write') || can('shipments:write')).toBe(false);
    for (const resource of COLUMNS[4]) {
      expect(can(`${resource}:read` as Permission) || can(`${resource}:write` as Permission)).toBe(
        false,
      );
    }
  });

  it('gives admin resources to admin alone', () => {
    for (const role of ROLES.filter((r) => r !== 'admin')) {
      for (const resource of COLUMNS[4]) {
        expect([role, roleGrants(role, `${resource}:read` as Permission)]).toEqual([role, false]);
        expect([role, roleGrants(role, `${resource}:write` as Permission)]).toEqual([role, false]);
      }
    }
  });
});

describe('isRole', () => {
  it.each([...ROLES])('knows %s', (role) => {
    expect(isRole(role)).toBe(true);
  });

  it.each(['root', 'Admin', '', 'customers'])('refuses %p', (value) => {
    expect(isRole(value)).toBe(false);
  });
});
