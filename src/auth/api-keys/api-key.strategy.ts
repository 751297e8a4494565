import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import type { Principal } from '../principal';
import { ApiKeyUsageRecorder } from './api-key-usage.recorder';
import { ApiKeyVerifier } from './api-key-verifier';

export const API_KEY_HEADER = 'X-API-Key';

/**
 * Passport strategy for `X-API-Key` (API.md §2). Each request a valid key authenticates
 * is counted for the key's usage (in memory; see ApiKeyUsageRecorder).
 *
 * A key this instance verified lately is also answered without passport (`validateNow`,
 * for the authentication guard): passport's per-request machinery, a promise at each of
 * its layers, was about a sixth of the CPU of a GET by id, for a lookup in a Map.
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(
    private readonly verifier: ApiKeyVerifier,
    private readonly usage: ApiKeyUsageRecorder,
  ) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  async validate(apiKey: string): Promise<Principal | null> {
    return this.counted(await this.verifier.verify(apiKey));
  }

  /**
   * `validate` for a key verified lately, without waiting; undefined when the key must be
   * verified (through passport, or `validate`).
   */
  validateNow(apiKey: string): Principal | null | undefined {
    const principal = this.verifier.verifyCached(apiKey);
    return principal === undefined ? undefined : this.counted(principal);
  }

  private counted(principal: Principal | null): Principal | null {
    if (principal?.apiKeyId) this.usage.record(principal.apiKeyId);
    return principal;
  }
}
