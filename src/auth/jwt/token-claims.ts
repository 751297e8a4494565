import type { JWTPayload } from 'jose';
import { holdsNul, NUL_MESSAGE } from '../../http/input/nul-character';
import { isRole, Permission, Role, ROLE_PERMISSIONS, ROLES } from '../permissions';
import type { Principal } from '../principal';

const PERMISSION = /^[a-z-]+:(read|write)$/;

/**
 * The known roles a token claims, read from `claim` (a dotted path reaches nested claims,
 * e.g. Keycloak's `realm_access.roles`). The value may be a list or a space-separated
 * string; unknown roles are ignored.
 */
export function rolesFrom(payload: JWTPayload, claim: string): Role[] {
  let value: unknown = payload;
  for (const part of claim.split('.')) {
    value =
      value !== null && typeof value === 'object'
        ? (value as Record<string, unknown>)[part]
        : undefined;
  }
  const names = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
  const roles = new Set(names.filter((r): r is Role => typeof r === 'string' && isRole(r)));
  return ROLES.filter((role) => roles.has(role));
}

/** The scopes a token carries: `scope` (RFC 9068, space-separated) or Entra's `scp`. */
export function scopesFrom(payload: JWTPayload): string[] | undefined {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return undefined;
}

/**
 * What a token may do (API.md §2): the permissions of its roles, narrowed by its scopes.
 * `strictScope` (the built-in issuer's tokens) narrows by the scope as it is, so a token
 * without a permission scope can do nothing. An external issuer's token narrows only when
 * its scope names at least one permission: an IdP that puts `openid profile` in every
 * token's scope leaves its roles in charge.
 */
export function effectivePermissions(
  roles: readonly Role[],
  scopes: readonly string[] | undefined,
  strictScope: boolean,
): Set<Permission> {
  const granted = new Set(roles.flatMap((role) => [...ROLE_PERMISSIONS[role]]));
  const named = (scopes ?? []).filter((scope) => PERMISSION.test(scope));
  if (!strictScope && named.length === 0) return granted;
  const allowed = new Set(named);
  return new Set([...granted].filter((permission) => allowed.has(permission)));
}

/** The longest `sub` kept: the columns naming who changed a status (`actor`) hold 200. */
const MAX_SUBJECT = 200;
/** A customer's `sub` is its `customerId` (API.md §2), an opaque string of at most 64. */
const MAX_CUSTOMER_ID = 64;

/**
 * Why `sub` cannot name the caller here, or undefined when it can. It keys the rate limit,
 * is recorded as the actor of changes and, for a customer, becomes the `customerId` of its
 * orders: a string (RFC 7519 §4.1.2) of 1 to 200 characters, at most 64 for a customer,
 * without U+0000, which PostgreSQL text cannot hold. A token outside that, however well
 * signed, was accepted and then failed the statement that stored it with a 500.
 */
export function subjectProblem(sub: unknown, roles: readonly Role[]): string | undefined {
  if (typeof sub !== 'string' || sub === '') return 'must be a non-empty string';
  if (holdsNul(sub)) return NUL_MESSAGE;
  const max = widestRole(roles) === 'customer' ? MAX_CUSTOMER_ID : MAX_SUBJECT;
  if (sub.length > max) {
    return max === MAX_CUSTOMER_ID
      ? `must be at most ${max} characters for a customer, whose customerId it is`
      : `must be at most ${max} characters`;
  }
  return undefined;
}

/**
 * The principal a verified token stands for. Its `role` is the widest it holds (a user
 * who is also staff is not confined to its own rows); a customer's `customerId` is `sub`.
 */
export function tokenPrincipal(
  subject: string,
  roles: readonly Role[],
  permissions: ReadonlySet<Permission>,
): Principal {
  const role = widestRole(roles);
  return {
    subject,
    kind: 'token',
    role,
    roles: [...roles],
    permissions,
    ...(role === 'customer' ? { customerId: subject } : {}),
  };
}

/** The role a token acts with: the widest it holds (ROLES runs from the widest). */
function widestRole(roles: readonly Role[]): Role {
  return ROLES.find((r) => roles.includes(r)) as Role;
}
