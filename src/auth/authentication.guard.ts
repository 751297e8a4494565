import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { ApiKeyStrategy } from './api-keys/api-key.strategy';
import { baseUrl } from '../http/responses/base-url';
import { Problem } from '../http/problems/problem';
import { memoByRoute } from '../http/routing/route-memo';
import { IS_PUBLIC, REQUIRED_PERMISSION, STAFF_ONLY } from './auth.decorators';
import { JwtVerifier } from './jwt/jwt-verifier';
import { Permission, roleGrants } from './permissions';
import type { Principal } from './principal';

/** Both challenges a client may answer (API.md §2). */
export const WWW_AUTHENTICATE =
  'Bearer realm="commerce-api", ApiKey realm="commerce-api", header="X-API-Key"';

const PassportApiKey = AuthGuard('api-key');

/** What a route declares about who may call it. */
interface RouteAccess {
  isPublic: boolean;
  permission: Permission | undefined;
  /** why customers may not call it (@StaffOnly), if they may not */
  staffOnly: string | undefined;
}

const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*)$/i;

/** The token of `Authorization: Bearer <token>` (RFC 6750 §2.1); undefined if none or malformed. */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  return BEARER.exec(request.headers.authorization ?? '')?.[1];
}

/**
 * Deny by default: every route needs a valid credential and the permission it declares,
 * unless it is marked @Public(). The credential is an `X-API-Key` (passport-headerapikey)
 * or an `Authorization: Bearer` JWT (jose, `JwtVerifier`). Missing credentials are 401
 * `unauthenticated`, bad ones 401 `invalid_token`, a role (or, for a token, a scope)
 * without the permission, or a customer on a @StaffOnly route, 403 `forbidden`.
 *
 * A key this instance verified lately is answered from the verifier's cache without
 * going through passport (ApiKeyStrategy.validateNow), and then nothing here waits:
 * passport's layers of promises cost more CPU than the rest of the check.
 */
@Injectable()
export class AuthenticationGuard extends PassportApiKey implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtVerifier,
    private readonly config: AppConfig,
    private readonly apiKeys: ApiKeyStrategy,
  ) {
    super();
  }

  private readonly accessOf = memoByRoute((handler, controller): RouteAccess => {
    const targets = [handler, controller];
    return {
      isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
      permission: this.reflector.getAllAndOverride<Permission>(REQUIRED_PERMISSION, targets),
      staffOnly: this.reflector.getAllAndOverride<string>(STAFF_ONLY, targets),
    };
  });

  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const access = this.accessOf(context);
    if (access.isPublic) return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = request.headers['x-api-key'];
    if (key !== undefined) {
      const known = typeof key === 'string' ? this.apiKeys.validateNow(key) : undefined;
      if (known === undefined) return this.authenticateThroughPassport(context, access);
      request.user = this.handleRequest(null, known) as Principal;
      return this.authorize(context, access, request.user);
    }
    if (request.headers.authorization !== undefined) {
      return this.authenticateBearer(request).then((principal) => {
        request.user = principal;
        return this.authorize(context, access, principal);
      });
    }
    throw new Problem(
      'unauthenticated',
      'Send an API key in X-API-Key or a bearer token.',
      undefined,
      {
        'WWW-Authenticate': WWW_AUTHENTICATE,
      },
    );
  }

  private async authenticateThroughPassport(
    context: ExecutionContext,
    access: RouteAccess,
  ): Promise<boolean> {
    await super.canActivate(context);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return this.authorize(context, access, request.user as Principal);
  }

  /** The permission the route declares, and its staff-only rule, for `principal`. */
  private authorize(context: ExecutionContext, access: RouteAccess, principal: Principal): true {
    const { permission, staffOnly } = access;
    if (!permission) {
      throw new Error(
        `${context.getClass().name}.${context.getHandler().name} declares no permission`,
      );
    }
    if (principal.permissions) {
      if (!principal.permissions.has(permission)) throw insufficientScope(principal, permission);
    } else if (!roleGrants(principal.role, permission)) {
      throw new Problem('forbidden', `The ${principal.role} role lacks ${permission}.`);
    }
    if (principal.role === 'customer' && staffOnly !== undefined) {
      throw new Problem('forbidden', staffOnly);
    }
    return true;
  }

  /**
   * `Authorization: Bearer <jwt>` (API.md §2): a JWT access token of a trusted issuer. A
   * token that is not valid is 401 `invalid_token`; a valid one that carries none of the
   * roles this API knows is 403.
   */
  private async authenticateBearer(request: FastifyRequest): Promise<Principal> {
    const token = bearerTokenOf(request);
    if (token === undefined) {
      throw invalidBearer('Send the token as `Authorization: Bearer <jwt>`.');
    }
    const result = await this.jwt.verify(token, baseUrl(request, this.config.publicUrl));
    switch (result.outcome) {
      case 'valid':
        return result.principal;
      case 'invalid':
        throw invalidBearer(result.reason);
      case 'no_role':
        throw new Problem('forbidden', 'The token carries none of the roles this API knows.');
    }
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

function invalidBearer(reason: string): Problem {
  const description = reason.replace(/["\\]/g, "'");
  return new Problem('invalid_token', reason, undefined, {
    'WWW-Authenticate': `Bearer realm="commerce-api", error="invalid_token", error_description="${description}", ApiKey realm="commerce-api", header="X-API-Key"`,
  });
}

/** RFC 6750 §3.1: a token whose roles allow the route but whose scopes do not. */
function insufficientScope(principal: Principal, permission: Permission): Problem {
  const roles = principal.roles ?? [principal.role];
  if (!roles.some((role) => roleGrants(role, permission))) {
    return new Problem('forbidden', `The token's roles (${roles.join(', ')}) lack ${permission}.`);
  }
  return new Problem('forbidden', `The token's scopes do not include ${permission}.`, undefined, {
    'WWW-Authenticate': `Bearer realm="commerce-api", error="insufficient_scope", scope="${permission}"`,
  });
}
