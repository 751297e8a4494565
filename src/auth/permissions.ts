/**
 * The role table of API.md §2, as data in one place. Each role maps to the permissions it
 * holds; `own:` marks a customer's rights, which apply to its own rows only.
 */
export const RESOURCES = [
  'products',
  'inventory',
  'orders',
  'invoices',
  'shipments',
  'api-keys',
  'users',
  'oauth-clients',
  'webhook-endpoints',
  'events',
] as const;
export type Resource = (typeof RESOURCES)[number];
export type Permission = `${Resource}:${'read' | 'write'}`;

export const ROLES = [
  'admin',
  'operations',
  'finance',
  'fulfillment',
  'analyst',
  'customer',
] as const;
export type Role = (typeof ROLES)[number];
/** The longest list of roles: `customer` stands alone, so every staff role and no more. */
export const MAX_ROLES = ROLES.length - 1;

const ADMIN_RESOURCES: Resource[] = [
  'api-keys',
  'users',
  'oauth-clients',
  'webhook-endpoints',
  'events',
];
const BUSINESS: Resource[] = ['products', 'inventory', 'orders', 'invoices', 'shipments'];

const both = (resources: Resource[]): Permission[] =>
  resources.flatMap((r) => [`${r}:read`, `${r}:write`] as Permission[]);
const read = (resources: Resource[]): Permission[] =>
  resources.map((r) => `${r}:read` as Permission);

export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set([...both(BUSINESS), ...both(ADMIN_RESOURCES)]),
  operations: new Set(both(BUSINESS)),
  finance: new Set([
    ...read(['products', 'inventory', 'orders', 'shipments']),
    ...both(['invoices']),
  ]),
  fulfillment: new Set([...both(['products', 'inventory', 'shipments']), ...read(['orders'])]),
  analyst: new Set(read(BUSINESS)),
  // A customer's order, invoice and shipment rights cover its own rows only (ownership is
  // enforced by the repositories); `orders:write` lets it create orders, nothing more.
  customer: new Set([...read(BUSINESS), 'orders:write']),
};

export function roleGrants(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
