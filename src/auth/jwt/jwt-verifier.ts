import { Injectable, Logger } from '@nestjs/common';
import {
  decodeJwt,
  errors,
  jwtVerify,
  type JWSAlgorithm,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { AppConfig } from '../../config/app-config';
import type { TrustedIssuerConfig } from '../../config/auth-issuers';
import { apiAudience, builtInIssuer, formerBuiltInIssuer } from '../oauth/oauth-urls';
import { SIGNING_ALG, SigningKeys } from '../oauth/signing-keys';
import type { Principal } from '../principal';
import { IssuerKeys, IssuerKeysUnavailable } from './issuer-keys';
import {
  effectivePermissions,
  rolesFrom,
  scopesFrom,
  subjectProblem,
  tokenPrincipal,
} from './token-claims';

/** Asymmetric algorithms only: never `none`, never a shared secret (RFC 8725 §3.1, §3.2). */
const EXTERNAL_ALGORITHMS: JWSAlgorithm[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
const CLOCK_TOLERANCE_S = 5;

export type TokenVerification =
  | { outcome: 'valid'; principal: Principal }
  /** the token is not acceptable: 401 invalid_token */
  | { outcome: 'invalid'; reason: string }
  /** a valid token that carries none of the roles this API knows: 403 */
  | { outcome: 'no_role'; issuer: string };

interface Issuer {
  issuer: string;
  audience: string | string[];
  keys: JWTVerifyGetKey;
  algorithms: JWSAlgorithm[];
  rolesClaim: string;
  /** RFC 9068 access tokens: typ `at+jwt` and every claim it requires */
  rfc9068: boolean;
  /** an external issuer's JWKS failed lately (issuer-keys.ts) */
  keysUnavailable?: () => boolean;
}

/**
 * Verifies `Authorization: Bearer` JWTs with jose (DESIGN.md §2) against the issuer they
 * name, if it is trusted: the built-in authorization server (local keys) or one of
 * AUTH_ISSUERS (its JWKS fetched and cached by jose's remote key set, refetched when an
 * unknown `kid` appears). Checks signature, `iss`, `aud`, `exp`, `nbf` and, for the
 * built-in issuer, the RFC 9068 profile; then maps roles and scopes to a principal.
 */
@Injectable()
export class JwtVerifier {
  private readonly logger = new Logger(JwtVerifier.name);
  private readonly external: Map<string, Issuer>;

  constructor(
    private readonly config: AppConfig,
    private readonly signingKeys: SigningKeys,
  ) {
    this.external = new Map(
      config.authIssuers.map((c) => [c.issuer, externalIssuer(c, this.logger)]),
    );
  }

  /** `origin`: where the request came in (PUBLIC_URL when set), naming the built-in issuer. */
  async verify(token: string, origin: string): Promise<TokenVerification> {
    let claimed: JWTPayload;
    try {
      claimed = decodeJwt(token);
    } catch {
      return { outcome: 'invalid', reason: 'The bearer token is not a JWT.' };
    }
    const issuer = this.issuerNamed(claimed.iss, origin);
    if (!issuer) {
      return { outcome: 'invalid', reason: 'The token was issued by an unknown issuer.' };
    }

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, issuer.keys, {
        issuer: issuer.issuer,
        audience: issuer.audience,
        algorithms: issuer.algorithms,
        clockTolerance: CLOCK_TOLERANCE_S,
        ...(issuer.rfc9068
          ? { typ: 'at+jwt', requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'] }
          : { requiredClaims: ['exp', 'sub'] }),
      }));
    } catch (error) {
      return { outcome: 'invalid', reason: this.reasonFor(error, issuer) };
    }

    const roles = rolesFrom(payload, issuer.rolesClaim);
    if (roles.length === 0) return { outcome: 'no_role', issuer: issuer.issuer };
    const unusable = subjectProblem(payload.sub, roles);
    if (unusable) return { outcome: 'invalid', reason: `The token's sub claim ${unusable}.` };
    const permissions = effectivePermissions(roles, scopesFrom(payload), issuer.rfc9068);
    return {
      outcome: 'valid',
      principal: tokenPrincipal(payload.sub as string, roles, permissions),
    };
  }

  private issuerNamed(iss: string | undefined, origin: string): Issuer | undefined {
    if (iss === undefined) return undefined;
    if (iss === builtInIssuer(origin) || iss === formerBuiltInIssuer(origin)) {
      return {
        issuer: iss,
        audience: apiAudience(origin),
        keys: this.signingKeys.verificationKey,
        algorithms: [SIGNING_ALG],
        rolesClaim: 'roles',
        rfc9068: true,
      };
    }
    return this.external.get(iss);
  }

  private reasonFor(error: unknown, issuer: Issuer): string {
    if (error instanceof errors.JWTExpired) return 'The token has expired.';
    if (error instanceof errors.JWTClaimValidationFailed) {
      return error.claim === 'aud'
        ? 'The token is not meant for this API (aud).'
        : `The token's ${error.claim} claim is not acceptable: ${error.reason}.`;
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      return 'The token signature is not valid.';
    }
    if (error instanceof errors.JWKSNoMatchingKey) {
      return 'The token was signed with a key its issuer does not publish.';
    }
    if (error instanceof errors.JOSEAlgNotAllowed) return 'The token uses a refused algorithm.';
    // logged where the fetch failed (issuer-keys.ts), once per fetch, not once per token
    if (error instanceof IssuerKeysUnavailable || issuer.keysUnavailable?.()) {
      return "The token's issuer keys could not be fetched.";
    }
    return 'The token is not valid.';
  }
}

function externalIssuer(config: TrustedIssuerConfig, logger: Logger): Issuer {
  const keys = new IssuerKeys(config.issuer, new URL(config.jwksUri), logger);
  return {
    issuer: config.issuer,
    audience: typeof config.audience === 'string' ? config.audience : [...config.audience],
    keys: keys.getKey,
    algorithms: EXTERNAL_ALGORITHMS,
    rolesClaim: config.rolesClaim,
    rfc9068: false,
    keysUnavailable: () => keys.unavailable,
  };
}
