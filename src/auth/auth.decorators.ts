import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiOAuth2, ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Permission } from './permissions';
import type { Principal } from './principal';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_PERMISSION = 'auth:permission';
export const STAFF_ONLY = 'auth:staff-only';

/** Marks one of the few routes anyone may call (docs, health, well-known). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * Declares what a route needs. The global guard enforces it; the OpenAPI document gets
 * the security requirement and the permission, and its 401/403 problem responses are
 * added from the same metadata (docs/openapi).
 */
export const RequirePermission = (permission: Permission) =>
  applyDecorators(
    SetMetadata(REQUIRED_PERMISSION, permission),
    ApiSecurity('ApiKey'),
    ApiSecurity('Bearer'),
    ApiOAuth2([permission], 'OAuth2'),
  );

/**
 * Narrows the route's permission to staff where the customer role holds it for less:
 * a customer's `orders:write` creates its own orders and changes none (API.md §2, "own:
 * read, create"). The guard refuses a customer with `reason`; the OpenAPI description
 * leaves `customer` out of the roles that may call the route.
 */
export const StaffOnly = (reason: string) => SetMetadata(STAFF_ONLY, reason);

/** The authenticated caller. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<FastifyRequest>().user;
    if (!principal) throw new Error('CurrentPrincipal used on a public route');
    return principal;
  },
);
