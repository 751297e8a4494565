import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Problem } from '../http/problem';
import { IS_PUBLIC, REQUIRED_PERMISSION } from './auth.decorators';
import { Permission, roleGrants } from './permissions';
import type { Principal } from './principal';

/** Both challenges a client may answer (API.md §2). */
export const WWW_AUTHENTICATE =
  'Bearer realm="commerce-api", ApiKey realm="commerce-api", header="X-API-Key"';

const PassportApiKey = AuthGuard('api-key');

/**
 * Deny by default: every route needs a valid credential and the permission it declares,
 * unless it is marked @Public(). Missing credentials are 401 `unauthenticated`, bad ones
 * 401 `invalid_token`, a role without the permission 403 `forbidden`.
 */
@Injectable()
export class AuthenticationGuard extends PassportApiKey implements CanActivate {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.headers['x-api-key'] === undefined) {
      // A bearer token is a credential, but none can be valid until JWT support lands.
      if (request.headers.authorization !== undefined) {
        throw new Problem(
          'invalid_token',
          'This token is not accepted; send an API key in X-API-Key.',
          undefined,
          {
            'WWW-Authenticate': `${WWW_AUTHENTICATE}, error="invalid_token"`,
          },
        );
      }
      throw new Problem('unauthenticated', 'Send an API key in X-API-Key.', undefined, {
        'WWW-Authenticate': WWW_AUTHENTICATE,
      });
    }
    await super.canActivate(context);

    const permission = this.reflector.getAllAndOverride<Permission | undefined>(
      REQUIRED_PERMISSION,
      targets,
    );
    if (!permission) {
      throw new Error(
        `${context.getClass().name}.${context.getHandler().name} declares no permission`,
      );
    }
    const principal = request.user as Principal;
    if (!roleGrants(principal.role, permission)) {
      throw new Problem('forbidden', `The ${principal.role} role lacks ${permission}.`);
    }
    return true;
  }

  override handleRequest<T>(error: unknown, user: T): T {
    if (error) throw error as Error;
    if (!user) {
      throw new Problem('invalid_token', 'The API key is unknown, revoked or expired.', undefined, {
        'WWW-Authenticate': `${WWW_AUTHENTICATE}, error="invalid_token"`,
      });
    }
    return user;
  }
}
