import { Injectable, Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { baseUrl } from '../http/responses/base-url';
import { ApiKeyStrategy } from './api-keys/api-key.strategy';
import { bearerTokenOf } from './authentication.guard';
import { JwtVerifier } from './jwt/jwt-verifier';
import type { Principal } from './principal';

/**
 * The principal behind a request's credentials, for a request answered before the
 * authentication guard ran (an unknown route, `405`, a body the parser refused, a
 * foreign Origin, a URL the router refused). Its rate-limit budget and usage are its
 * caller's, as for every other request (API.md §8): a client with a valid key is not
 * charged to its IP address, which it may share behind NAT with anyone.
 *
 * The credentials are checked as the guard checks them (the API key first, else the
 * bearer token) and with the same verifiers, so cached keys cost no round trip. It never
 * throws: credentials that do not verify, or cannot be verified now, leave the request
 * anonymous.
 */
@Injectable()
export class CallerIdentifier {
  private readonly logger = new Logger('CallerIdentifier');

  constructor(
    private readonly apiKeys: ApiKeyStrategy,
    private readonly jwt: JwtVerifier,
    private readonly config: AppConfig,
  ) {}

  async identify(request: FastifyRequest): Promise<Principal | undefined> {
    try {
      const key = request.headers['x-api-key'];
      if (key !== undefined) {
        return typeof key === 'string'
          ? ((await this.apiKeys.validate(key)) ?? undefined)
          : undefined;
      }
      const token = bearerTokenOf(request);
      if (token === undefined) return undefined;
      const result = await this.jwt.verify(token, baseUrl(request, this.config.publicUrl));
      return result.outcome === 'valid' ? result.principal : undefined;
    } catch (error) {
      this.logger.warn(
        { err: error, requestId: request.id },
        'Could not check the credentials of a refused request',
      );
      return undefined;
    }
  }
}
