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

/** The authenticated caller. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<FastifyRequest>().user;
    if (!principal) throw new Error('CurrentPrincipal used on a public route');
    return principal;
  },
);
